#!/usr/bin/env bash
# npm run build, unless dist/ is newer than everything the build reads: npm test after .ci/run's
# build (or twice in a row) builds once. The stamp is written after a build that succeeded, inside
# dist/, which nest empties when it starts a build; a build started otherwise leaves no stamp, so
# the next run builds again.
set -euo pipefail
cd "$(dirname "$0")/.."
STAMP=dist/.build-stamp
if [[ -f $STAMP ]] && [[ -z $(find apps libs package.json package-lock.json tsconfig.json tsconfig.build.json nest-cli.json -newer "$STAMP" -print -quit) ]]; then
  echo "dist/ is current"
  exit 0
fi
npm run --silent build
touch "$STAMP"
