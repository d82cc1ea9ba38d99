// R0's entry: every page is one HTML file (a build input in vite.config.js) whose
// #app names the page Svelte mounts into it.
import { mount } from 'svelte';
import App from './App.svelte';

const target = document.getElementById('app');
mount(App, { target, props: { page: target.dataset.page } });
