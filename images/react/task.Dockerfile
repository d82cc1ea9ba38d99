# Task image for npm stacks: the stack image + the task's dependencies, installed at
# image build time (the cell's container has no egress). Built by sandbox._docker_images
# with the repo's package.json / package-lock.json in deps/.
ARG STACK
FROM ${STACK}
COPY --chown=pwb:pwb deps/ /opt/pwb/deps/
RUN cd /opt/pwb/deps \
 && if [ -f package-lock.json ]; then npm ci; else npm install; fi
# The npm cache now holds every tarball: `npm ci` / `npm install` in the workspace work
# offline. The installed tree is also at $PWB_DEPS_DIR for stacks that prefer a copy.
ENV npm_config_offline=true PWB_DEPS_DIR=/opt/pwb/deps/node_modules
