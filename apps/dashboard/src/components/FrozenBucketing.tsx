/**
 * The salt and bucket count of an experiment, a layer or a holdout once it exists, as terms of
 * the page's `<dl>`: together they decide every user's bucket, so they are shown, never edited.
 */
export function FrozenBucketing({ salt, bucketCount }: { salt: string; bucketCount: number }) {
  return (
    <>
      <dt>Salt</dt>
      <dd>
        <code>{salt}</code>
      </dd>
      <dt>Bucket count</dt>
      <dd>{bucketCount.toLocaleString('en-US')}</dd>
    </>
  );
}
