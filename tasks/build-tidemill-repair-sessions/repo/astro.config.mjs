// Astro's configuration: a static build into dist/, one folder per page (/sessions/).
import { defineConfig } from "astro/config";

export default defineConfig({
  output: "static",
  outDir: "dist",
  build: { format: "directory" },
});
