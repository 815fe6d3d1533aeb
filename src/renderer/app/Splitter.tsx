import { useRef, type PointerEvent } from 'react';

interface SplitterProps {
  /** 'col' sits between columns and drags sideways; 'row' sits between rows and drags up/down. */
  axis: 'col' | 'row';
  size: number;
  onResize(size: number): void;
  /** +1 when dragging right/down grows the pane, -1 when it shrinks it. */
  direction: 1 | -1;
  onReset?(): void;
  label: string;
}

export function Splitter({ axis, size, onResize, direction, onReset, label }: SplitterProps) {
  const drag = useRef<{ start: number; size: number } | null>(null);
  const pos = (e: PointerEvent) => (axis === 'col' ? e.clientX : e.clientY);

  return (
    <div
      className={`splitter splitter-${axis}`}
      role="separator"
      aria-orientation={axis === 'col' ? 'vertical' : 'horizontal'}
      aria-label={label}
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        drag.current = { start: pos(e), size };
        document.body.classList.add(`resizing-${axis}`);
      }}
      onPointerMove={(e) => {
        if (drag.current) onResize(drag.current.size + direction * (pos(e) - drag.current.start));
      }}
      onPointerUp={(e) => {
        e.currentTarget.releasePointerCapture(e.pointerId);
        drag.current = null;
        document.body.classList.remove(`resizing-${axis}`);
      }}
      onDoubleClick={onReset}
    />
  );
}
