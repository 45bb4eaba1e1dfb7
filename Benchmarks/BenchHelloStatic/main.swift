// A second baseline of `touchstone-bench repl`: BenchHello's program, linked like `touchstone`
// (the Swift runtime linked in statically), so the figures show what the linking alone saves.
print("hello> ")
