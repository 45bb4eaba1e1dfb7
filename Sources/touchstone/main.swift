print("touchstone: REPL under construction")
