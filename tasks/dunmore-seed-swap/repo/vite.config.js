import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const page = (name) => fileURLToPath(new URL(name, import.meta.url));

// Four static pages, each a build input whose #app names the Preact page src/main.jsx
// renders. JSX through esbuild's automatic runtime (Preact), no plugin.
export default defineConfig({
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    rollupOptions: {
      input: {
        main: page('index.html'),
        seeds: page('seeds.html'),
        packet: page('packet.html'),
        visit: page('visit.html'),
      },
    },
  },
});
