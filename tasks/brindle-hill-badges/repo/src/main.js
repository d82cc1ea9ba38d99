// Every page is one HTML file whose #app names the page the app shows.
import { mount } from 'svelte';
import App from './App.svelte';

const target = document.getElementById('app');
mount(App, { target, props: { page: target.dataset.page } });
