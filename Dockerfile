# tokengate's gateway as a container: Node 20, dependencies from the lockfile, compiled to dist/.
# Build stage: the full Debian image has python3, make and g++ in case better-sqlite3 has to
# compile its native module (it normally downloads a prebuilt one).
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `npm ci` would run the package's `prepare` (a build) before the sources are here: install
# without lifecycle scripts, then run the one native install script that matters.
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
# Everything the build left (dist/, production node_modules/, config/ with the demo merchants,
# any page assets), so a new runtime folder needs no change here.
COPY --from=build /app ./
# ./data holds the SQLite files (events with sqlite:, or read models and keys with kurrentdb:);
# /app/keys is where docker-compose.cluster.yml mounts the key store its gateways share. Both
# belong to the user the gateway runs as, and an empty volume mounted on them inherits that.
RUN mkdir -p /app/data /app/keys && chown node:node /app/data /app/keys
USER node
VOLUME ["/app/data"]
EXPOSE 8080
CMD ["node", "dist/server.js"]
