package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/deliverykit/deliverykit"
)

// migrationLock is the key of the transaction-scoped advisory lock that
// serialises migrations: several servers opening an empty database at
// once would otherwise race to create the same tables. The value is
// arbitrary ("dkstore" in ASCII); it only has to be the same in every
// process.
const migrationLock int64 = 0x646b73746f7265

// migrations are the schema changes in order; migration i (from 1) takes
// the schema from version i-1 to i. %[1]s is the quoted schema name.
// Applied migrations are never edited: a change to the layout is a new
// entry, so a database written by any earlier release migrates forward.
var migrations = [][]string{
	1: {
		// fillfactor leaves room on each page so that rewriting a
		// record (sessions are rewritten often) can stay on its page
		// as a heap-only tuple, without touching the index.
		`CREATE TABLE %[1]s.deliverykit_records (
			collection bytea NOT NULL,
			key bytea NOT NULL,
			value bytea NOT NULL,
			version bigint NOT NULL,
			PRIMARY KEY (collection, key)
		) WITH (fillfactor = 80)`,
		`CREATE TABLE %[1]s.deliverykit_sequences (
			collection bytea PRIMARY KEY,
			value bigint NOT NULL
		)`,
		`CREATE SEQUENCE %[1]s.deliverykit_versions AS bigint MINVALUE 1`,
	},
}

// SchemaVersion is the layout version this package reads and writes: the
// number of migrations.
const SchemaVersion = 1

// migrate creates or updates the tables in schema ("" for the
// connection's current schema) and returns the schema's name. It runs in
// one transaction: a failed migration leaves the database as it was.
func migrate(ctx context.Context, pool *pgxpool.Pool, schema string) (string, error) {
	fail := func(what string, err error) (string, error) {
		if cerr := ctx.Err(); cerr != nil {
			return "", fmt.Errorf("storage/postgres: %s: %w", what, cerr)
		}
		return "", deliverykit.Errorf(deliverykit.KindInternal, "storage/postgres: %s: %w", what, err)
	}
	pgtx, err := pool.Begin(ctx)
	if err != nil {
		return fail("connect", err)
	}
	defer rollback(ctx, pgtx)
	if _, err := pgtx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLock); err != nil {
		return fail("lock for migration", err)
	}

	if schema == "" {
		var current *string
		if err := pgtx.QueryRow(ctx, "SELECT current_schema()").Scan(&current); err != nil {
			return fail("current schema", err)
		}
		if current == nil {
			return "", deliverykit.E(deliverykit.KindInternal, "storage/postgres: the connection's search_path names no existing schema; set Options.Schema or search_path")
		}
		schema = *current
	} else {
		// Look before creating: CREATE SCHEMA IF NOT EXISTS needs the
		// CREATE privilege even when the schema exists.
		var exists bool
		if err := pgtx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", schema).Scan(&exists); err != nil {
			return fail("look up schema", err)
		}
		if !exists {
			if _, err := pgtx.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
				return fail(fmt.Sprintf("create schema %q", schema), err)
			}
		}
	}
	q := pgx.Identifier{schema}.Sanitize()
	versionTable := q + ".deliverykit_schema"

	var found *string
	if err := pgtx.QueryRow(ctx, "SELECT to_regclass($1)::text", versionTable).Scan(&found); err != nil {
		return fail("look up "+versionTable, err)
	}
	if found == nil {
		if _, err := pgtx.Exec(ctx, "CREATE TABLE "+versionTable+
			" (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"); err != nil {
			return fail("create "+versionTable, err)
		}
	}
	var current int
	if err := pgtx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM "+versionTable).Scan(&current); err != nil {
		return fail("read schema version", err)
	}
	if current > SchemaVersion {
		return "", deliverykit.Errorf(deliverykit.KindInternal,
			"storage/postgres: schema %q is at version %d, newer than the %d this release knows: upgrade deliverykit", schema, current, SchemaVersion)
	}
	if current == SchemaVersion {
		// Nothing to write: a role without DDL rights gets here too.
		return schema, nil
	}
	for v := current + 1; v <= SchemaVersion; v++ {
		for _, stmt := range migrations[v] {
			if _, err := pgtx.Exec(ctx, fmt.Sprintf(stmt, q)); err != nil {
				return fail(fmt.Sprintf("migrate schema %q to version %d", schema, v), err)
			}
		}
		if _, err := pgtx.Exec(ctx, "INSERT INTO "+versionTable+" (version) VALUES ($1)", v); err != nil {
			return fail(fmt.Sprintf("record schema version %d", v), err)
		}
	}
	if err := pgtx.Commit(ctx); err != nil {
		return fail("commit migration", err)
	}
	return schema, nil
}

// escapeLiteral quotes s for use inside a single-quoted SQL string.
func escapeLiteral(s string) string {
	return strings.ReplaceAll(s, "'", "''")
}
