// Package pgtest connects tests to the PostgreSQL server named by the
// environment, and gives each test a schema of its own, so that test
// packages can run in parallel and repeatedly against one database.
//
// Without DELIVERYKIT_POSTGRES_DSN the tests skip, saying how to start a
// server; with DELIVERYKIT_REQUIRE_POSTGRES=1 (CI sets it) they fail
// instead, so that a broken CI setup cannot pass silently.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Environment variables read by DSN.
const (
	EnvDSN     = "DELIVERYKIT_POSTGRES_DSN"
	EnvRequire = "DELIVERYKIT_REQUIRE_POSTGRES"
)

// DSN returns the connection string of the test server, or skips the test
// (fails it when EnvRequire is "1") when there is none.
func DSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn != "" {
		return dsn
	}
	if os.Getenv(EnvRequire) == "1" {
		tb.Fatalf("%s=1 but %s is not set: the PostgreSQL tests cannot run", EnvRequire, EnvDSN)
	}
	tb.Skipf("%s is not set; to run the PostgreSQL tests, start a throw-away server with\n"+
		"\teval \"$(bash .ci/postgres.sh start)\"\nand stop it with bash .ci/postgres.sh stop", EnvDSN)
	return ""
}

// Schema returns the name of a schema no other test uses and drops it,
// with everything in it, when tb ends. The schema itself is not created:
// Open creates it. Cleanups run last-in first-out, so a store opened after
// Schema is called is closed before its schema is dropped.
func Schema(tb testing.TB) string {
	tb.Helper()
	dsn := DSN(tb)
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		tb.Fatal(err)
	}
	name := "dktest_" + hex.EncodeToString(b[:])
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			tb.Errorf("drop test schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			tb.Errorf("drop test schema %s: %v", name, err)
		}
	})
	return name
}
