import "@testing-library/jest-dom/vitest";
import { configure } from "@testing-library/react";

// The CI machine is shared and slow at times: wait longer before calling a
// findBy/waitFor a failure (it still fails if the UI never gets there).
configure({ asyncUtilTimeout: 5000 });
