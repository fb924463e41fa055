import { render } from 'preact';
import { App } from './app.js';
import { webConfig } from './config.js';
import './style.css';
import 'highlight.js/styles/github.css';

const root = document.getElementById('app');
if (root) render(<App config={webConfig(import.meta.env)} />, root);
