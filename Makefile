# MI — build, demo, tests and benchmarks.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
export PATH := /opt/swift/usr/bin:$(PATH)

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: setup build release install deb package-test demo demo-cluster test bench clean

## Installs the missing Debian and Python packages (as root; otherwise prints the command).
setup:
	bash scripts/setup.sh

build: setup
	$(SWIFT) build

release: setup
	$(SWIFT) build -c release --static-swift-stdlib

## mi, mi-report and mi-server with their manuals, completions, example Config.plist and systemd unit
## under $(DESTDIR)$(PREFIX) (docs/installing.md).
install: release
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" bash scripts/install.sh

## The Debian packages mi and mi-server in .build/deb/ (docs/installing.md).
deb: release
	bash scripts/deb.sh

## Builds the packages, installs them with dpkg -i, checks the installed files, removes them (root).
package-test: release
	bash scripts/package-test.sh

## The main job end to end on the shipped sample data; OFFICE=1 then keeps mi-server running for the office.
demo: build
	OFFICE="$(OFFICE)" bash scripts/demo.sh

## The same flow through nginx in front of two mi-servers on PostgreSQL sharing one data directory.
demo-cluster: build
	OFFICE="$(OFFICE)" bash scripts/cluster-demo.sh

## Every test: unit tests and end-to-end tests against the real binaries and services, then the
## Debian packages installed and checked (package-test).
test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(MAKE) package-test

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
