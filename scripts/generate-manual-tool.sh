#!/usr/bin/env bash
# Builds (once) and prints the path of swift-argument-parser's generate-manual tool, the
# generator its `generate-manual` plugin runs, from the checkout this package resolved. Built on
# its own rather than through `swift package plugin generate-manual`, which would rebuild every
# product in release mode without --static-swift-stdlib, over the static binaries being installed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
checkout=.build/checkouts/swift-argument-parser
scratch=.build/generate-manual
[ -d "$checkout" ] || { echo "generate-manual: $checkout is missing — run make release first" >&2; exit 1; }
swift build -c release --package-path "$checkout" --scratch-path "$scratch" --product generate-manual >&2
echo "$PWD/$scratch/release/generate-manual"
