// The Markdown renderer (react-markdown, remark-gfm and their parsers, about a fifth of the
// page's first script) is loaded once the first screen is up, not before it: until it arrives a
// message shows as its plain text, in the same box, which then re-renders as Markdown.
import { memo, type ReactNode } from 'react';
import { loadable } from '../app/loadable';
import { usePreloadWhenSettled } from '../app/usePreloadWhenSettled';

const markdown = loadable(() => import('./Markdown'));
const preload = () => void markdown.load().catch(() => undefined);

/** Starts loading the renderer once the folder's index settled (see usePreloadWhenSettled). */
export function usePreloadMarkdown(): void {
  usePreloadWhenSettled(preload);
}

export const Markdown = memo(function LazyMarkdown({ text, streaming = false }: { text: string; streaming?: boolean }): ReactNode {
  const { Component } = markdown.use();
  if (Component) return <Component text={text} streaming={streaming} />;
  return (
    <div className="md md-plain" data-testid="markdown-plain">
      {text}
    </div>
  );
});
