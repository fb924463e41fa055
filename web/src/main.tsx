import { render } from 'preact';
import { App } from './app.js';
import { webConfig } from './config.js';
import { applyTheme, storedTheme } from './theme.js';
import './style.css';

// Before the first render: a chosen theme shows from the start.
applyTheme(storedTheme(window.localStorage), document.documentElement);
const root = document.getElementById('app');
if (root) render(<App config={webConfig(import.meta.env)} />, root);
