import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

const page = (name) => fileURLToPath(new URL(name, import.meta.url));

// A static build: every HTML page is a build input, each mounting the Svelte app with
// its page name.
export default defineConfig({
  plugins: [svelte()],
  build: {
    rollupOptions: {
      input: { main: page('index.html'), seeds: page('seeds.html'), basket: page('basket.html') },
    },
  },
});
