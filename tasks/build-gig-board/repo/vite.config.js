import { defineConfig } from "vite";

// Preact via esbuild's automatic JSX runtime: no extra plugin needed.
export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
});
