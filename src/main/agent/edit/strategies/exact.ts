// Step 4: old_str as given.
import { findAll } from '../lines';
import { judge, rangesAt, type Strategy } from '../types';

export const exact: Strategy = {
  name: 'exact',
  locate(input) {
    const ranges = rangesAt(findAll(input.text, input.oldStr), input.oldStr.length);
    return judge(input, { strategy: 'exact', ranges, newStr: input.newStr, needle: input.oldStr });
  },
};
