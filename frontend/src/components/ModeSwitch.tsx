import { useRef, type KeyboardEvent } from "react";

import type { Mode } from "../api/models";
import { KeyboardIcon, MicIcon } from "./icons";

const MODES: { mode: Mode; label: string; Icon: () => React.JSX.Element }[] = [
  { mode: "text", label: "Text", Icon: KeyboardIcon },
  { mode: "voice", label: "Voice", Icon: MicIcon },
];

export interface ModeSwitchProps {
  mode: Mode;
  onSwitch: (mode: Mode) => void;
  disabled?: boolean;
}

/**
 * Text / Voice toggle. Each button says whether it is the current mode with
 * `aria-pressed`; Tab reaches them, Enter/Space press them, and the arrow
 * keys move between them like a toolbar.
 */
export function ModeSwitch({ mode, onSwitch, disabled = false }: ModeSwitchProps) {
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    event.preventDefault();
    const index = MODES.findIndex((m) => m.mode === mode);
    const step = event.key === "ArrowRight" ? 1 : -1;
    const next = (index + step + MODES.length) % MODES.length;
    const target = MODES[next];
    if (!target) return;
    onSwitch(target.mode);
    buttons.current[next]?.focus();
  };

  return (
    <div className="mode-switch" role="group" aria-label="Input mode" onKeyDown={onKeyDown}>
      {MODES.map((m, i) => (
        <button
          key={m.mode}
          ref={(el) => {
            buttons.current[i] = el;
          }}
          type="button"
          className="mode-button"
          aria-pressed={mode === m.mode}
          disabled={disabled}
          onClick={() => onSwitch(m.mode)}
        >
          <m.Icon /> {m.label}
        </button>
      ))}
    </div>
  );
}
