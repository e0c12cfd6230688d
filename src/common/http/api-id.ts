/**
 * An id in the document: ids are integers (bigint identity columns, at most 2^53 - 1 on the
 * wire, `MAX_ID`), in answers as in requests. Spread into `@ApiProperty` on every id and list of
 * ids, request and response DTOs alike, so no id is typed `number` by the property's TS type (a
 * property's own `example` after the spread wins). A request field's constraints still come from
 * its validator (`@IsIdSet`, `@IsIdParam`).
 */
export const ID = { type: 'integer', example: 1 } as const;

/** A list of ids (`attachmentIds`, `listIds`): an array of integers. */
export const ID_LIST = { type: 'integer', isArray: true, example: [1] } as const;
