/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";

// The built UI goes into the Python package so `pip install . && unimem serve`
// serves it without a node step on the user's machine.
const outDir = fileURLToPath(new URL("../src/unimem/web/dist", import.meta.url));

export default defineConfig({
  plugins: [react()],
  // Relative asset URLs: the server may mount the UI under any prefix.
  base: "./",
  build: {
    outDir,
    emptyOutDir: true,
    sourcemap: false,
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    // Stable names: the committed build changes only when the UI does.
    rollupOptions: {
      output: {
        entryFileNames: "assets/app.js",
        chunkFileNames: "assets/[name].js",
        assetFileNames: "assets/[name][extname]",
      },
    },
  },
  server: {
    // `npm run dev` talks to a `unimem serve` on the default port.
    proxy: {
      "/v1": { target: "http://127.0.0.1:8000", ws: true },
    },
  },
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["./tests/setup.ts"],
    include: ["tests/**/*.test.{ts,tsx}"],
    restoreMocks: true,
    testTimeout: 20_000,
  },
});
