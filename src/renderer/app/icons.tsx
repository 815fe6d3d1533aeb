// Small inline icons: no icon font to load before the first paint, and they inherit currentColor.
import type { SVGProps } from 'react';

export type IconProps = SVGProps<SVGSVGElement> & { size?: number };

export function Svg({ size = 16, children, ...rest }: IconProps) {
  return (
    <svg width={size} height={size} viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth={1.3} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" {...rest}>
      {children}
    </svg>
  );
}

export const ChevronIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M6 4l4 4-4 4" />
  </Svg>
);

export const FolderIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M1.75 4.25c0-.69.56-1.25 1.25-1.25h3.1l1.4 1.5H13c.69 0 1.25.56 1.25 1.25v6.5c0 .69-.56 1.25-1.25 1.25H3c-.69 0-1.25-.56-1.25-1.25z" />
  </Svg>
);

export const FolderOpenIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M1.75 12V4.25C1.75 3.56 2.31 3 3 3h3.1l1.4 1.5H12c.69 0 1.25.56 1.25 1.25V7" />
    <path d="M1.75 12l1.6-4.3c.18-.45.6-.7 1.07-.7h9.83c.52 0 .88.52.7 1.01L13.4 12.2c-.18.48-.63.8-1.14.8H2.7a.95.95 0 01-.95-1z" />
  </Svg>
);

export const FileIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M4 1.75h5l3.25 3.25v8.25c0 .55-.45 1-1 1H4c-.55 0-1-.45-1-1V2.75c0-.55.45-1 1-1z" />
    <path d="M9 1.75V5h3.25" />
  </Svg>
);

export const PlusIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M8 3v10M3 8h10" />
  </Svg>
);

/** A git branch: a worktree's session works on one of its own. */
export const BranchIcon = (p: IconProps) => (
  <Svg {...p}>
    <circle cx="5" cy="3.5" r="1.5" />
    <circle cx="5" cy="12.5" r="1.5" />
    <circle cx="11" cy="5" r="1.5" />
    <path d="M5 5v6M11 6.5c0 2.5-6 2-6 4.5" />
  </Svg>
);

export const CopyIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="5.25" y="5.25" width="8" height="8.5" rx="1.25" />
    <path d="M10.75 5.25V3.5c0-.69-.56-1.25-1.25-1.25H4c-.69 0-1.25.56-1.25 1.25v6.25c0 .69.56 1.25 1.25 1.25h1.25" />
  </Svg>
);

export const CloseIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M4.5 4.5l7 7M11.5 4.5l-7 7" />
  </Svg>
);

export const RefreshIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M13 8a5 5 0 11-1.46-3.54" />
    <path d="M13 2.5v3h-3" />
  </Svg>
);

export const CollapseIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="2.25" y="2.25" width="11.5" height="11.5" rx="1.5" />
    <path d="M5.5 8h5" />
  </Svg>
);

export const TerminalIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="1.75" y="2.75" width="12.5" height="10.5" rx="1.5" />
    <path d="M4.5 6.25L6.5 8l-2 1.75M8 10.25h3" />
  </Svg>
);

export const PanelRightIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="1.75" y="2.75" width="12.5" height="10.5" rx="1.5" />
    <path d="M10 2.75v10.5" />
  </Svg>
);

export const SparkIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M8 1.75l1.5 4.75L14.25 8 9.5 9.5 8 14.25 6.5 9.5 1.75 8 6.5 6.5z" />
  </Svg>
);

/** The Loupe mark: a magnifier whose lens is a diff hunk. */
export const LogoIcon = (p: IconProps) => (
  <Svg {...p} strokeWidth={1.5}>
    <circle cx="6.75" cy="6.75" r="4.5" />
    <path d="M10.1 10.1l4.15 4.15" />
    <path d="M4.75 5.75h4M4.75 7.75h2.5" />
  </Svg>
);

export const ImageIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="2" y="3" width="12" height="10" rx="1.25" />
    <circle cx="5.75" cy="6.25" r="1.1" />
    <path d="M2.5 11.5l3.5-3.25 2.5 2.25 2-1.75 3 2.75" />
  </Svg>
);

/** Lines picked out of a file: the viewer's selection. */
export const SelectionIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M3 3.5h10M3 6.5h7M3 9.5h10M3 12.5h5" />
    <path d="M1.5 5.5v5" strokeWidth={2} />
  </Svg>
);
