// Astro's configuration (Astro 4, a static build into dist/). Pages are .astro files
// under src/pages/ (one per route), the shared layout is in src/layouts/, components in
// src/components/; files under public/ are served as they are. `astro` itself is not a
// dependency of the repo: the stack image provides it.
import { defineConfig } from "astro/config";

export default defineConfig({
  output: "static",
  outDir: "dist",
  build: { format: "directory" },
});
