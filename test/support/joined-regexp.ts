/**
 * A regular expression written in pieces, so that a long expected line keeps within the line limit. Each
 * piece is a regular expression literal, valid on its own (a cut falls between whole atoms, never inside a
 * group or a class); the result's source is the pieces' sources joined, with the flags they all carry.
 */
export function joinedRegExp(...pieces: readonly RegExp[]): RegExp {
  const [first] = pieces;
  if (first === undefined) throw new Error('joinedRegExp: give at least one piece');
  const other = pieces.find((piece) => piece.flags !== first.flags);
  if (other !== undefined)
    throw new Error(
      `joinedRegExp: /${other.source}/${other.flags} has other flags than /${first.source}/${first.flags}`,
    );
  return new RegExp(pieces.map((piece) => piece.source).join(''), first.flags);
}
