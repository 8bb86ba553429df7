# MI — build, demo, tests and benchmarks.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: setup build release demo demo-cluster test bench clean

## Installs the missing Debian and Python packages (as root; otherwise prints the command).
setup:
	bash scripts/setup.sh

build: setup
	$(SWIFT) build

release: setup
	$(SWIFT) build -c release --static-swift-stdlib

## The main job end to end on the shipped sample data; OFFICE=1 then keeps mi-server running for the office.
demo: build
	OFFICE="$(OFFICE)" bash scripts/demo.sh

## The same flow through nginx in front of two mi-servers on PostgreSQL sharing one data directory.
demo-cluster: build
	OFFICE="$(OFFICE)" bash scripts/cluster-demo.sh

## Every test: unit tests and end-to-end tests against the real binaries and services.
test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## Benchmarks (see BENCHMARKS.md).
bench: release
	bash scripts/bench-list.sh
	bash scripts/bench-login.sh
	bash scripts/bench-upload.sh
	bash scripts/bench-throughput.sh
	bash scripts/bench-xlsx.sh
	bash scripts/bench-backup.sh
	bash scripts/bench-xlsform.sh

clean:
	rm -rf .build
