import type { ComponentType } from 'react';
import type { Loadable } from './loadable';

/** A code-split view without props, drawn once its chunk is in; a failed load says so where the view would be. */
export function LoadedView<M extends { default: ComponentType }>({ view, what }: { view: Loadable<M>; what: string }) {
  const { Component, error } = view.use();
  if (error) return <div className="chat-error" role="alert">The {what} could not be loaded: {error}. Reload the page.</div>;
  const View = Component as ComponentType | null;
  return View ? <View /> : null;
}
