
## Sample things (module `sample-things`)

### sample_thing.created

A sample thing was created. Recorded by `POST …/sample-things`; one created published also records `sample_thing.published` after it. (module: sample-things; scope: site)

| field | type | description |
|---|---|---|
| `id` | integer | The sample thing's id |
| `slug` | string | Its slug, unique in the site |
| `status` | string | `draft` or `published` |

```json
{ "type": "sample_thing.created", "timestamp": "2026-11-25T10:00:00.000Z", "data": { "id": 7, "slug": "spring-opening", "status": "draft" } }
```

### sample_thing.updated

A sample thing changed. Recorded by every `PATCH …/sample-things/{id}`. (module: sample-things; scope: site)

| field | type | description |
|---|---|---|
| `id` | integer | The sample thing's id |
| `slug` | string | Its slug after the change |
| `status` | string | Its status after the change |

```json
{ "type": "sample_thing.updated", "timestamp": "2026-11-25T10:30:00.000Z", "data": { "id": 7, "slug": "spring-opening", "status": "draft" } }
```

### sample_thing.published

A sample thing became published. Recorded when a create or an update makes it `published` from anything else, after its `created` or `updated`. (module: sample-things; scope: site)

| field | type | description |
|---|---|---|
| `id` | integer | The sample thing's id |
| `slug` | string | Its slug |
| `status` | string | `published` |

```json
{ "type": "sample_thing.published", "timestamp": "2026-11-25T11:00:00.000Z", "data": { "id": 7, "slug": "spring-opening", "status": "published" } }
```

<!-- @if lifecycle -->
### sample_thing.archived

A sample thing was archived. Recorded when an update makes it `archived`, after its `updated`; it is hidden as a draft is. (module: sample-things; scope: site)

| field | type | description |
|---|---|---|
| `id` | integer | The sample thing's id |
| `slug` | string | Its slug |
| `status` | string | `archived` |

```json
{ "type": "sample_thing.archived", "timestamp": "2026-11-25T17:00:00.000Z", "data": { "id": 7, "slug": "spring-opening", "status": "archived" } }
```

<!-- @end -->
### sample_thing.deleted

A sample thing was deleted. Recorded by `DELETE …/sample-things/{id}`. (module: sample-things; scope: site)

| field | type | description |
|---|---|---|
| `id` | integer | The deleted sample thing's id |
| `slug` | string | Its slug |
| `status` | string | Its status when deleted |

```json
{ "type": "sample_thing.deleted", "timestamp": "2026-11-25T18:00:00.000Z", "data": { "id": 7, "slug": "spring-opening", "status": "published" } }
```
