# Touchstone's entry points. Every target first installs missing system packages.
#   make run     build and start the touchstone REPL
#   make test    build and run every test
#   make bench   run all benchmarks in release mode
#   make example run the ChangeDetection example

SWIFT ?= swift

.PHONY: deps run test bench example

deps:
	@scripts/install-deps.sh

run: deps
	@$(SWIFT) build --product touchstone -q
	@$(SWIFT) run -q touchstone $(ARGS)

test: deps
	$(SWIFT) test

bench: deps
	$(SWIFT) run -c release touchstone-bench all

example: deps
	$(SWIFT) run ChangeDetection
