// The default theme, plus <Plot>: the algorithm plots, drawn per width and theme.
import type { Theme } from 'vitepress';
import DefaultTheme from 'vitepress/theme';
import Plot from './Plot.vue';
import './style.css';

export default {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component('Plot', Plot);
  },
} satisfies Theme;
