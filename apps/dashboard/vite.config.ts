import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The dashboard is served by the API server at `/`, so every request is same-origin.
export default defineConfig({
  plugins: [react()],
  // One chunk on purpose: the results page needs Recharts itself, so a split would not shorten
  // the first load that matters (bench/dashboard/RESULTS.md).
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1024 },
});
