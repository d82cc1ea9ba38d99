// Every page is one HTML file whose #app names the page the app shows.
import { createApp } from 'vue';
import App from './App.vue';

const target = document.getElementById('app');
createApp(App, { page: target.dataset.page }).mount(target);
