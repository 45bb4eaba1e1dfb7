// The baseline of `touchstone-bench repl`: a minimal Swift executable that prints a prompt-like
// line and exits, measured the same way as the REPL.
print("hello> ")
