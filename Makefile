# Touchstone's entry points. Every target first installs missing system packages.
#   make run     build and start the touchstone REPL
#   make test    build and run every test (the root package, whose LinuxAuthTests start a private
#                fprintd with a virtual reader themselves; the REPL demo of the real Linux
#                authenticators: scripts/linux-auth-demo.sh; the sample adopter Examples/Adopter,
#                built and tested with every -dev header and .pc file hidden:
#                scripts/adopter-test.sh; then the login server in Server/ against SQLite and a
#                private PostgreSQL: scripts/server-test.sh)
#                (AppAttestTests also run pyattest, from PyPI: scripts/pyattest-env.sh)
#                (first, scripts/api-coverage.py --check: docs/API-COVERAGE.md and its generated
#                test are current; after the root suite, its parallel-use suite under
#                ThreadSanitizer: scripts/tsan.sh --ci)
#   make bench   run all benchmarks in release mode
#   make example run the ChangeDetection example
#   make server  start touchstone-server (the fingerprint-login server) on 127.0.0.1:8080
#   make docs    build the DocC documentation of the Touchstone module (offline; swift-docc-plugin)
#   make fuzz    coverage-guided fuzzing (libFuzzer + AddressSanitizer) of the parsers and C-style
#                APIs that take outside bytes, 60 s per target (scripts/fuzz.sh; FUZZ_SECONDS=… to change)

# The swift executable (a path; spaces in it are fine).
SWIFT ?= swift
# The root package is built through scripts/swift-quick with its debug info: C through ccache,
# whose objects the ThreadSanitizer, adopter and server builds then reuse. A plain `swift build`
# names another C compiler, so the first one after a make target compiles the C targets again.
ROOT_SWIFT = env SWIFT='$(SWIFT)' scripts/swift-quick --debug-info

.PHONY: deps run test bench example server docs fuzz

deps:
	@scripts/install-deps.sh

run: deps
	@$(ROOT_SWIFT) build --product touchstone -q
	@$(ROOT_SWIFT) run -q touchstone $(ARGS)

# Built first (no time limit: a clean build takes minutes), then tested under one, so a hung
# test fails the run instead of holding CI: TERM after 15 minutes, KILL 10 s later.
test: deps
	python3 scripts/api-coverage.py --check
	python3 scripts/secbase-error-codes.py --check
	scripts/pyattest-env.sh
	$(ROOT_SWIFT) build --build-tests
	timeout -k 10 900 $(ROOT_SWIFT) test --skip-build
	SWIFT='$(SWIFT)' scripts/tsan.sh --ci
	SWIFT='$(SWIFT)' scripts/linux-auth-demo.sh >/dev/null
	SWIFT='$(SWIFT)' scripts/adopter-test.sh
	SWIFT='$(SWIFT)' scripts/server-test.sh

bench: deps
	'$(SWIFT)' build -c release --product touchstone
	'$(SWIFT)' build -c release --product BenchHello
	'$(SWIFT)' build -c release --product BenchHelloStatic
	'$(SWIFT)' run -c release touchstone-bench all

example: deps
	$(ROOT_SWIFT) run ChangeDetection

server: deps
	SWIFT='$(SWIFT)' scripts/swift-quick run --package-path Server touchstone-server $(ARGS)

docs:
	'$(SWIFT)' package --disable-sandbox generate-documentation --target Touchstone

FUZZ_SECONDS ?= 60
fuzz: deps
	SWIFT='$(SWIFT)' scripts/fuzz.sh $(FUZZ_SECONDS)
