import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const page = (name) => fileURLToPath(new URL(name, import.meta.url));

// Every HTML page is a build input: add new pages here.
export default defineConfig({
  build: {
    rollupOptions: {
      input: {
        main: page('index.html'),
        shows: page('shows.html'),
        workshops: page('workshops.html'),
        visit: page('visit.html'),
      },
    },
  },
});
