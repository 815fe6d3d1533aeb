// What search tools tell the model when read rules keep files out of their results. It
// depends on the rules alone, never on what was found, so it reveals nothing about the
// withheld files (not even whether they matched).
export const READ_RULES_NOTE =
  'Read rules deny or hold for approval some paths; those files are never searched or listed here. Ask the user if you need one.';
