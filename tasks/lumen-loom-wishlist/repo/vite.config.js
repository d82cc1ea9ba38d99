import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

const page = (name) => fileURLToPath(new URL(name, import.meta.url));

// A static build of four pages: every HTML page is a build input, each mounting the Vue
// app with its page name.
export default defineConfig({
  plugins: [vue()],
  build: {
    rollupOptions: {
      input: {
        main: page('index.html'),
        colourways: page('colourways.html'),
        saved: page('saved.html'),
        visit: page('visit.html'),
      },
    },
  },
});
