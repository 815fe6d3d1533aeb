// The review pane's own icons, drawn like the app's (16px grid, currentColor).
import { Svg, type IconProps } from '../app/icons';

export const DiffIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M4.5 2v7M1 5.5h7M8 12.5h7" />
  </Svg>
);

export const CheckIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M3 8.5l3 3 7-7" />
  </Svg>
);

export const UndoIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M4 6.5h6a3.25 3.25 0 010 6.5H7" />
    <path d="M6.5 4L4 6.5 6.5 9" />
  </Svg>
);

export const SideBySideIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="1.75" y="2.75" width="12.5" height="10.5" rx="1.5" />
    <path d="M8 2.75v10.5" />
  </Svg>
);

export const InlineIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="1.75" y="2.75" width="12.5" height="10.5" rx="1.5" />
    <path d="M4.5 6h7M4.5 8.5h7M4.5 11h4" />
  </Svg>
);

export const FileDiffIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M4 1.75h5l3.25 3.25v8.25c0 .55-.45 1-1 1H4c-.55 0-1-.45-1-1V2.75c0-.55.45-1 1-1z" />
    <path d="M7.75 6v4.5M5.5 8.25h4.5M5.5 12h4.5" />
  </Svg>
);

export const WarningIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M8 2l6.25 11H1.75z" />
    <path d="M8 6.5v3M8 11.5v.01" />
  </Svg>
);

export const HistoryIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M2.5 8a5.5 5.5 0 101.6-3.9" />
    <path d="M2.25 2.5v2.75H5" />
    <path d="M8 5v3.25l2 1.25" />
  </Svg>
);

export const CommitIcon = (p: IconProps) => (
  <Svg {...p}>
    <circle cx="8" cy="8" r="2.75" />
    <path d="M1 8h4.25M10.75 8H15" />
  </Svg>
);
