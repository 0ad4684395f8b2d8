package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The pgx baseline is the HTTP baseline plus the least a service on
// PostgreSQL does per request: a POST inserts one row (in its own
// transaction, committed with the server's synchronous_commit, as every
// acknowledged write of storage/postgres is) and a GET selects one row by
// primary key. Each row holds as many bytes as deliverykit's answer to the
// same request. It uses the same pgx driver and the same DSN (pool
// settings included) as storage/postgres, so the ratio of the postgres
// server to it is what deliverykit's work costs beyond one row.

// pgxRowsTable is the baseline's table, in the schema it is given.
const pgxRowsTable = "bench_rows"

// newPgxBaseline connects to dsn, creates the table in schema when
// missing, seeds one row per GET endpoint, and returns the handler and
// what closes the pool.
func newPgxBaseline(ctx context.Context, dsn, schema string, sizes map[string]int) (http.Handler, func(), error) {
	if dsn == "" || schema == "" {
		return nil, nil, fmt.Errorf("the pgx baseline needs %s and %s", postgresEnv, schemaEnv)
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	table := pgx.Identifier{schema, pgxRowsTable}.Sanitize()
	if _, err := pool.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize()); err != nil {
		pool.Close()
		return nil, nil, err
	}
	if _, err := pool.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+table+" (id text PRIMARY KEY, body bytea NOT NULL)"); err != nil {
		pool.Close()
		return nil, nil, err
	}
	insert := "INSERT INTO " + table + " (id, body) VALUES ($1, $2)"
	sel := "SELECT body FROM " + table + " WHERE id = $1"
	// Ids unique across processes and runs: a random prefix and a counter.
	var prefix [6]byte
	rand.Read(prefix[:])
	var seq atomic.Uint64
	nextID := func() string { return hex.EncodeToString(prefix[:]) + "-" + strconv.FormatUint(seq.Add(1), 10) }

	mux, err := baselineMux(sizes, func(ep endpoint, method string, size int) (func(context.Context) error, error) {
		row := []byte(strings.Repeat("x", size))
		if method == http.MethodPost {
			return func(ctx context.Context) error {
				_, err := pool.Exec(ctx, insert, nextID(), row)
				return err
			}, nil
		}
		id := "seed-" + ep.name
		if _, err := pool.Exec(ctx, insert+" ON CONFLICT (id) DO NOTHING", id, row); err != nil {
			return nil, err
		}
		return func(ctx context.Context) error {
			var body []byte
			return pool.QueryRow(ctx, sel, id).Scan(&body)
		}, nil
	})
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return mux, pool.Close, nil
}

// baselineDecoder is how the baselines read endpoint name's request body;
// nil for the GET endpoints.
func baselineDecoder(name string) func(io.Reader) error {
	switch name {
	case "siw.create", "siw.create.key":
		return func(r io.Reader) error { var v siwCreate; return json.NewDecoder(r).Decode(&v) }
	case "delivery.create":
		return func(r io.Reader) error { var v deliveryCreate; return json.NewDecoder(r).Decode(&v) }
	}
	return nil
}

// dropSchemas removes the schemas a run created, with everything in them.
func dropSchemas(ctx context.Context, dsn string, schemas ...string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, s := range schemas {
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{s}.Sanitize()+" CASCADE"); err != nil {
			return err
		}
	}
	return nil
}
