# Sample things

A site's sample things (`src/sample-things`). Routes: `/api/v2/sites/{siteName}/sample-things`,
tag `Sample things`, permission group `sample-things`.

| route | who | what |
|---|---|---|
| `GET …/sample-things` | anyone; a key sees drafts | newest first, keyset pages; `status`, `createdFrom`, `createdTo` |
| `GET …/sample-things/{id}` | anyone; a key sees drafts | by id or slug (all digits is an id); a draft is a 404 without a key |
| `POST …/sample-things` | key | `201` with `Location`; the slug is made from the title when absent |
| `PATCH …/sample-things/{id}` | key | any field; null is refused |
| `DELETE …/sample-things/{id}` | key | `204` |

## Rules

- **Drafts**: a new one is a `draft` unless created `published`. Anonymous callers, publishable
  keys and keys without `sample-things:read` see published ones only; a draft is a 404 to them,
  as one that never existed.
- **Slugs** are unique in a site (409 `duplicate_slug` for an explicit one that is taken; one
  made from the title takes the next free `-N`).
<!-- @if lifecycle -->
- **Lifecycle** (`sample-thing-lifecycle.ts`, one table): `draft` → `published` or `archived`;
  `published` → `draft` or `archived`; `archived` → `draft`. Any other move is a 409
  `transition_forbidden` that changes nothing. Archived ones are hidden as drafts are.
<!-- @end -->
- **`publishedAt`** is set the first time it is published and kept when it goes back to draft.

## Events

<!-- @if !lifecycle -->
`sample_thing.created`, `.updated`, `.published` (a move to `published`, or a create as
published) and `.deleted`, each with `id`, `slug` and `status` ([events.md](events.md)).
<!-- @end -->
<!-- @if lifecycle -->
`sample_thing.created`, `.updated`, `.published` (a move to `published`, or a create as
published), `.archived` and `.deleted`, each with `id`, `slug` and `status` ([events.md](events.md)).
<!-- @end -->

## Account deletion

Its rows go with the account's sites (`sample-things-data.owner.ts`).
