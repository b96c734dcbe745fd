import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The dashboard is served by the API server at `/`, so every request is same-origin.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
});
