import type { ComponentChildren } from 'preact';

/** A column heading: shown, or read to screen readers only (a column of action buttons). */
export type Heading = string | { readonly hidden: string };

/**
 * A table of records in its scrolling frame, the same on every page: a caption (read to
 * screen readers only, unless `showCaption`), one row of column headings, then the rows the
 * caller renders (a row's first cell is its `th scope="row"` where a name identifies it).
 */
export function DataTable(props: { caption: string; showCaption?: boolean; headings: readonly Heading[]; children: ComponentChildren }) {
  return (
    <div class="table-wrap">
      <table>
        <caption class={props.showCaption ? undefined : 'visually-hidden'}>{props.caption}</caption>
        <thead>
          <tr>
            {props.headings.map((heading) =>
              typeof heading === 'string' ? (
                <th key={heading} scope="col">
                  {heading}
                </th>
              ) : (
                <th key={heading.hidden} scope="col">
                  <span class="visually-hidden">{heading.hidden}</span>
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
