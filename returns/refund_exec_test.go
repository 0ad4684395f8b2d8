package returns

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// fakeExecutor answers each execution with the next of outcomes (the last
// one again when they run out) and records the requests.
type fakeExecutor struct {
	mu       sync.Mutex
	outcomes []RefundOutcome
	errs     []error
	reqs     []RefundRequest
}

func (e *fakeExecutor) ExecuteRefund(_ context.Context, req RefundRequest) (RefundOutcome, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reqs = append(e.reqs, req)
	if len(e.errs) > 0 {
		err := e.errs[0]
		e.errs = e.errs[1:]
		if err != nil {
			return RefundOutcome{}, err
		}
	}
	out := e.outcomes[0]
	if len(e.outcomes) > 1 {
		e.outcomes = e.outcomes[1:]
	}
	return out, nil
}

// newExecFixture is newFixture with a refund executor (nil for none) on a
// plain store: events stay in the outbox until a test delivers them.
func newExecFixture(t testing.TB, ex RefundExecutor) *fixture {
	t.Helper()
	store := memory.New()
	clock := deliverykit.NewManualClock(t0)
	svc := New(store, Options{Clock: clock, IDs: &deliverykit.SequentialIDs{},
		Policies: StaticPolicies{"site-a": testPolicy}, RefundExecutor: ex})
	return &fixture{svc: svc, store: store, clock: clock, ctx: t.Context()}
}

// refundOf imports an order, returns one jacket and reports it approved:
// refund transaction 1 of return 1 (1299.90 − 59.50 = 1240.40 SEK).
func (f *fixture) refundOf(t testing.TB) RefundEntry {
	t.Helper()
	f.importOrder(t, "site-a", "A-1")
	r := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	res, err := f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ReturnID: r.ID, Items: []ReturnedItemInput{{SKU: "JACKET-M", Quantity: 1, Approved: true}}})
	if err != nil || len(res.RefundTransactions) != 1 {
		t.Fatalf("ReportReturnedItems: %v %+v", err, res)
	}
	return res.RefundTransactions[0]
}

func (f *fixture) pendingTypes(t testing.TB) []event.Type {
	t.Helper()
	evs, err := outbox.Pending(t.Context(), f.store, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []event.Type
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

// refundMoves are the calls that move a refund transaction.
var refundMoves = map[string]func(f *fixture, id uint64) (RefundEntry, error){
	"MarkRefunded": func(f *fixture, id uint64) (RefundEntry, error) { return f.svc.MarkRefunded(f.ctx, "site-a", id) },
	"ReportRefundSucceeded": func(f *fixture, id uint64) (RefundEntry, error) {
		return f.svc.ReportRefundSucceeded(f.ctx, "site-a", id, RefundReport{ForeignID: "re_42"})
	},
	"ReportRefundFailed": func(f *fixture, id uint64) (RefundEntry, error) {
		return f.svc.ReportRefundFailed(f.ctx, "site-a", id, RefundReport{ForeignID: "re_41", Reason: "card expired"})
	},
	"RetryRefund": func(f *fixture, id uint64) (RefundEntry, error) { return f.svc.RetryRefund(f.ctx, "site-a", id) },
}

// TestRefundTransitions walks every refund transaction state against
// every call that moves one: the allowed moves and their effects, and the
// refused ones as a FailedPrecondition naming the state that changes
// nothing and writes no event.
func TestRefundTransitions(t *testing.T) {
	accepted := &fakeExecutor{outcomes: []RefundOutcome{{Result: RefundAccepted}}}
	// reach brings refund 1 into a state; executor says whether the
	// service has one.
	type state struct {
		executor bool
		reach    []string // moves after the refund is created
		want     TransactionStatus
	}
	states := map[TransactionStatus]state{
		TxAwaitingExternalRefund:  {want: TxAwaitingExternalRefund},
		TxPending:                 {executor: true, want: TxPending},
		TxSuccess:                 {reach: []string{"ReportRefundSucceeded"}, want: TxSuccess},
		TxFailed:                  {reach: []string{"ReportRefundFailed"}, want: TxFailed},
		TxRefunded:                {reach: []string{"MarkRefunded"}, want: TxRefunded},
		"FAILED with an executor": {executor: true, reach: []string{"ReportRefundFailed"}, want: TxFailed},
	}
	type outcome struct {
		status       TransactionStatus // "" = refused
		returnStatus ReturnStatus
		events       []event.Type
		foreignID    string
		attempt      int
		reason       string
	}
	paid := func(s TransactionStatus, foreignID string) outcome {
		return outcome{status: s, returnStatus: StatusCompleted, events: []event.Type{event.TypeRefundChanged, event.TypeReturnStatusChanged}, foreignID: foreignID, attempt: 1}
	}
	failed := outcome{status: TxFailed, returnStatus: StatusAwaitingRefund, events: []event.Type{event.TypeRefundChanged}, foreignID: "re_41", attempt: 1, reason: "card expired"}
	cases := []struct {
		from TransactionStatus
		move string
		want outcome
	}{
		{TxAwaitingExternalRefund, "MarkRefunded", paid(TxRefunded, "")},
		{TxAwaitingExternalRefund, "ReportRefundSucceeded", paid(TxSuccess, "re_42")},
		{TxAwaitingExternalRefund, "ReportRefundFailed", failed},
		{TxAwaitingExternalRefund, "RetryRefund", outcome{}},
		{TxPending, "MarkRefunded", outcome{}},
		{TxPending, "ReportRefundSucceeded", paid(TxSuccess, "re_42")},
		{TxPending, "ReportRefundFailed", failed},
		{TxPending, "RetryRefund", outcome{}},
		{TxSuccess, "MarkRefunded", outcome{}},
		{TxSuccess, "ReportRefundSucceeded", outcome{}},
		{TxSuccess, "ReportRefundFailed", outcome{}},
		{TxSuccess, "RetryRefund", outcome{}},
		{TxFailed, "MarkRefunded", outcome{}},
		{TxFailed, "ReportRefundSucceeded", outcome{}},
		{TxFailed, "ReportRefundFailed", outcome{}},
		{TxFailed, "RetryRefund", outcome{status: TxAwaitingExternalRefund, returnStatus: StatusAwaitingRefund, events: []event.Type{event.TypeRefundChanged}, foreignID: "re_41", attempt: 2}},
		{"FAILED with an executor", "RetryRefund", outcome{status: TxPending, returnStatus: StatusAwaitingRefund, events: []event.Type{event.TypeRefundChanged}, foreignID: "re_41", attempt: 2}},
		{TxRefunded, "MarkRefunded", outcome{}},
		{TxRefunded, "ReportRefundSucceeded", outcome{}},
		{TxRefunded, "ReportRefundFailed", outcome{}},
		{TxRefunded, "RetryRefund", outcome{}},
	}
	for _, tc := range cases {
		t.Run(string(tc.from)+"/"+tc.move, func(t *testing.T) {
			st := states[tc.from]
			var ex RefundExecutor
			if st.executor {
				ex = accepted
			}
			f := newExecFixture(t, ex)
			id := f.refundOf(t).RefundID
			for _, m := range st.reach {
				if _, err := refundMoves[m](f, id); err != nil {
					t.Fatalf("%s: %v", m, err)
				}
			}
			before := len(f.pendingTypes(t))
			stored, err := f.svc.GetReturn(f.ctx, "site-a", 1)
			if err != nil || stored.RefundTransactions[0].Status != st.want {
				t.Fatalf("setup: %v %+v, want %s", err, stored.RefundTransactions, st.want)
			}

			got, err := refundMoves[tc.move](f, id)
			after, _ := f.svc.GetReturn(f.ctx, "site-a", 1)
			events := f.pendingTypes(t)[before:]
			if tc.want.status == "" {
				if kindOf(err) != "failed precondition" || !strings.Contains(err.Error(), string(st.want)) {
					t.Errorf("%s from %s: %v, want a FailedPrecondition naming %s", tc.move, tc.from, err, st.want)
				}
				if diff := cmp.Diff(stored, after); diff != "" {
					t.Errorf("a refused move changed the return (-before +after):\n%s", diff)
				}
				if len(events) != 0 {
					t.Errorf("a refused move wrote events %v", events)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s from %s: %v", tc.move, tc.from, err)
			}
			want := tc.want
			gotOutcome := outcome{status: got.Status, returnStatus: after.Status, events: events, foreignID: got.ForeignID, attempt: got.Attempt, reason: got.FailureReason}
			if diff := cmp.Diff(want, gotOutcome, cmp.AllowUnexported(outcome{})); diff != "" {
				t.Errorf("%s from %s (-want +got):\n%s", tc.move, tc.from, diff)
			}
			tx := after.RefundTransactions[0]
			if tx.Status != want.status || tx.ForeignID != want.foreignID || tx.FailureReason != want.reason {
				t.Errorf("return's refund transaction = %+v", tx)
			}
			wantItem := RefundAwaiting
			if want.status.paid() {
				wantItem = RefundDone
			}
			if after.Items[0].RefundStatus != wantItem {
				t.Errorf("item refundStatus = %s, want %s", after.Items[0].RefundStatus, wantItem)
			}
		})
	}
}

// TestRefundCreatedPendingWithExecutor: with an executor a new refund is
// PENDING; without, AWAITING_EXTERNAL_REFUND as before.
func TestRefundCreatedPendingWithExecutor(t *testing.T) {
	for _, tc := range []struct {
		ex   RefundExecutor
		want TransactionStatus
	}{{nil, TxAwaitingExternalRefund}, {&fakeExecutor{outcomes: []RefundOutcome{{Result: RefundAccepted}}}, TxPending}} {
		f := newExecFixture(t, tc.ex)
		if got := f.refundOf(t); got.Status != tc.want || got.Attempt != 1 {
			t.Errorf("executor %v: new refund %s attempt %d, want %s attempt 1", tc.ex != nil, got.Status, got.Attempt, tc.want)
		}
	}
}

// TestHandleRefundChanged drives the executor as the outbox would: each
// result, a redelivered event, an executor error (retried), an outcome
// for an attempt that is no longer current.
func TestHandleRefundChanged(t *testing.T) {
	cases := []struct {
		name        string
		outcomes    []RefundOutcome
		errs        []error
		deliveries  int
		wantErrs    int
		want        TransactionStatus
		wantForeign string
		wantReason  string
		wantCalls   int
		wantEvents  []event.Type // written by the deliveries
	}{
		{name: "succeeded", outcomes: []RefundOutcome{{Result: RefundSucceeded, ForeignID: "px_1"}}, deliveries: 1,
			want: TxSuccess, wantForeign: "px_1", wantCalls: 1, wantEvents: []event.Type{event.TypeRefundChanged, event.TypeReturnStatusChanged}},
		{name: "declined", outcomes: []RefundOutcome{{Result: RefundDeclined, ForeignID: "px_2", Reason: "insufficient funds"}}, deliveries: 1,
			want: TxFailed, wantForeign: "px_2", wantReason: "insufficient funds", wantCalls: 1, wantEvents: []event.Type{event.TypeRefundChanged}},
		{name: "accepted keeps PENDING with the executor's id, without an event", outcomes: []RefundOutcome{{Result: RefundAccepted, ForeignID: "px_3"}}, deliveries: 2,
			want: TxPending, wantForeign: "px_3", wantCalls: 2},
		{name: "redelivered after success executes nothing", outcomes: []RefundOutcome{{Result: RefundSucceeded, ForeignID: "px_4"}}, deliveries: 3,
			want: TxSuccess, wantForeign: "px_4", wantCalls: 1, wantEvents: []event.Type{event.TypeRefundChanged, event.TypeReturnStatusChanged}},
		{name: "executor error is returned for a retry", outcomes: []RefundOutcome{{Result: RefundSucceeded, ForeignID: "px_5"}}, errs: []error{errors.New("provider unreachable")},
			deliveries: 2, wantErrs: 1, want: TxSuccess, wantForeign: "px_5", wantCalls: 2, wantEvents: []event.Type{event.TypeRefundChanged, event.TypeReturnStatusChanged}},
		{name: "unknown result is an error", outcomes: []RefundOutcome{{Result: "MAYBE"}}, deliveries: 1, wantErrs: 1, want: TxPending, wantCalls: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ex := &fakeExecutor{outcomes: tc.outcomes, errs: tc.errs}
			f := newExecFixture(t, ex)
			f.refundOf(t)
			before := len(f.pendingTypes(t))
			ev := event.Event{ID: "e1", Type: event.TypeRefundChanged, Site: "site-a", Subject: "1"}
			errs := 0
			for range tc.deliveries {
				if err := f.svc.HandleRefundChanged(f.ctx, ev); err != nil {
					errs++
				}
			}
			r, _ := f.svc.GetReturn(f.ctx, "site-a", 1)
			tx := r.RefundTransactions[0]
			got := []any{errs, tx.Status, tx.ForeignID, tx.FailureReason, len(ex.reqs), f.pendingTypes(t)[before:]}
			want := []any{tc.wantErrs, tc.want, tc.wantForeign, tc.wantReason, tc.wantCalls, tc.wantEvents}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			wantReq := RefundRequest{Site: "site-a", RefundID: 1, ReturnID: 1, OrderForeignID: "A-1", Attempt: 1, Key: "site-a/1/1",
				Method: RefundOriginalPayment, Currency: "SEK", Amount: Amount{Minor: 124040, Scale: 2}}
			if diff := cmp.Diff(wantReq, ex.reqs[0]); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("an outcome for a superseded attempt is dropped", func(t *testing.T) {
		f := newExecFixture(t, &fakeExecutor{outcomes: []RefundOutcome{{Result: RefundAccepted}}})
		f.refundOf(t)
		// The merchant reports failure and retries while attempt 1 is
		// still out; its late success must not settle attempt 2.
		if _, err := f.svc.ReportRefundFailed(f.ctx, "site-a", 1, RefundReport{Reason: "timeout"}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.RetryRefund(f.ctx, "site-a", 1); err != nil {
			t.Fatal(err)
		}
		err := f.svc.applyOutcome(f.ctx, RefundRequest{Site: "site-a", RefundID: 1, Attempt: 1}, RefundOutcome{Result: RefundSucceeded, ForeignID: "late"})
		r, _ := f.svc.GetReturn(f.ctx, "site-a", 1)
		if err != nil || r.RefundTransactions[0].Status != TxPending || r.RefundTransactions[0].ForeignID != "" {
			t.Errorf("late outcome: %v %+v", err, r.RefundTransactions[0])
		}
	})

	t.Run("without an executor nothing happens", func(t *testing.T) {
		f := newExecFixture(t, nil)
		f.refundOf(t)
		if err := f.svc.HandleRefundChanged(f.ctx, event.Event{Type: event.TypeRefundChanged, Site: "site-a", Subject: "1"}); err != nil {
			t.Fatal(err)
		}
		if r, _ := f.svc.GetReturn(f.ctx, "site-a", 1); r.RefundTransactions[0].Status != TxAwaitingExternalRefund {
			t.Errorf("status %s", r.RefundTransactions[0].Status)
		}
	})
}

// TestRefundExecutorThroughOutbox: the refund is executed by the outbox
// after the report that made it committed, so a process that stops right
// after the commit still pays it out when the outbox delivers; a failing
// executor is retried with the outbox's backoff.
func TestRefundExecutorThroughOutbox(t *testing.T) {
	store := memory.New()
	clock := deliverykit.NewManualClock(t0)
	d := outbox.New(store, outbox.Options{Clock: clock, RetryBase: time.Second, RetryMax: time.Second, Jitter: func() float64 { return 0 }})
	ex := &fakeExecutor{outcomes: []RefundOutcome{{Result: RefundSucceeded, ForeignID: "px_9"}}, errs: []error{errors.New("provider down")}}
	// The service writes to the plain store: its events wait in the
	// outbox, as after a crash right after the commit.
	svc := New(store, Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Policies: StaticPolicies{"site-a": testPolicy}, RefundExecutor: ex})
	d.Handle(event.TypeRefundChanged, "refunds", svc.HandleRefundChanged)
	f := &fixture{svc: svc, store: store, clock: clock, ctx: t.Context()}
	if got := f.refundOf(t); got.Status != TxPending {
		t.Fatalf("new refund %s", got.Status)
	}
	status := func() TransactionStatus {
		r, err := svc.GetReturn(t.Context(), "site-a", 1)
		if err != nil {
			t.Fatal(err)
		}
		return r.RefundTransactions[0].Status
	}
	var got []TransactionStatus
	for range 3 {
		if _, err := d.Dispatch(t.Context()); err != nil {
			t.Fatal(err)
		}
		got = append(got, status())
		clock.Advance(2 * time.Second)
	}
	// First dispatch: the executor is down (still PENDING); after the
	// backoff the refund succeeds; later dispatches change nothing.
	if diff := cmp.Diff([]TransactionStatus{TxPending, TxSuccess, TxSuccess}, got); diff != "" {
		t.Errorf("statuses after each dispatch (-want +got):\n%s", diff)
	}
	if len(ex.reqs) != 2 || ex.reqs[0].Key != ex.reqs[1].Key {
		t.Errorf("executions %+v: want the same key twice", ex.reqs)
	}
}

// TestDemoRefunds: the demo settles at once or after its delay on the
// clock, fails at the configured rate with the injected random numbers,
// and is idempotent by key.
func TestDemoRefunds(t *testing.T) {
	if _, err := NewDemoRefunds(DemoRefundsOptions{FailureRate: 1.5}); kindOf(err) != "invalid argument" {
		t.Errorf("failure rate 1.5: %v", err)
	}
	if _, err := NewDemoRefunds(DemoRefundsOptions{Delay: -time.Second}); kindOf(err) != "invalid argument" {
		t.Errorf("negative delay: %v", err)
	}
	seq := func(vs ...float64) func() float64 {
		return func() float64 { v := vs[0]; vs = vs[1:]; return v }
	}

	t.Run("at once", func(t *testing.T) {
		demo, err := NewDemoRefunds(DemoRefundsOptions{FailureRate: 0.5, Rand: seq(0.9, 0.1)})
		if err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		var got []RefundOutcome
		for _, req := range []RefundRequest{{RefundID: 1, Attempt: 1, Key: "s/1/1"}, {RefundID: 2, Attempt: 1, Key: "s/2/1"}, {RefundID: 1, Attempt: 1, Key: "s/1/1"}} {
			out, err := demo.ExecuteRefund(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, out)
		}
		want := []RefundOutcome{
			{Result: RefundSucceeded, ForeignID: "demo-refund-1-1"},
			{Result: RefundDeclined, ForeignID: "demo-refund-2-1", Reason: DemoRefundFailure},
			{Result: RefundSucceeded, ForeignID: "demo-refund-1-1"}, // the same key: the same outcome, no new draw
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("after a delay, reported to the service", func(t *testing.T) {
		clock := deliverykit.NewManualClock(t0)
		demo, err := NewDemoRefunds(DemoRefundsOptions{FailureRate: 0.5, Delay: time.Minute, Rand: seq(0.1), Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		f := newExecFixture(t, demo)
		demo.SetReporter(f.svc)
		f.refundOf(t)
		if err := f.svc.HandleRefundChanged(f.ctx, event.Event{Type: event.TypeRefundChanged, Site: "site-a", Subject: "1"}); err != nil {
			t.Fatal(err)
		}
		read := func() RefundTransaction {
			r, _ := f.svc.GetReturn(f.ctx, "site-a", 1)
			return r.RefundTransactions[0]
		}
		if tx := read(); tx.Status != TxPending || tx.ForeignID != "demo-refund-1-1" {
			t.Errorf("accepted: %+v", tx)
		}
		if n, err := demo.Settle(f.ctx); n != 0 || err != nil {
			t.Errorf("Settle before the delay: %d %v", n, err)
		}
		clock.Advance(time.Minute)
		if n, err := demo.Settle(f.ctx); n != 1 || err != nil {
			t.Errorf("Settle after the delay: %d %v", n, err)
		}
		if tx := read(); tx.Status != TxFailed || tx.FailureReason != DemoRefundFailure {
			t.Errorf("settled: %+v", tx)
		}
		if n, _ := demo.Settle(f.ctx); n != 0 {
			t.Errorf("settled twice")
		}
	})
}

// flakyReporter fails with errs in turn, then succeeds; it counts calls.
type flakyReporter struct {
	errs  []error
	calls int
}

func (r *flakyReporter) report() (RefundEntry, error) {
	r.calls++
	if len(r.errs) > 0 {
		err := r.errs[0]
		r.errs = r.errs[1:]
		return RefundEntry{}, err
	}
	return RefundEntry{}, nil
}

func (r *flakyReporter) ReportRefundSucceeded(context.Context, string, uint64, RefundReport) (RefundEntry, error) {
	return r.report()
}

func (r *flakyReporter) ReportRefundFailed(context.Context, string, uint64, RefundReport) (RefundEntry, error) {
	return r.report()
}

// TestDemoRefundsSettleErrors: a due settlement without a reporter, or
// whose report fails, stays due; one the service refuses because the
// transaction moved on is settled.
func TestDemoRefundsSettleErrors(t *testing.T) {
	clock := deliverykit.NewManualClock(t0)
	demo, err := NewDemoRefunds(DemoRefundsOptions{Delay: time.Second, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if _, err := demo.ExecuteRefund(ctx, RefundRequest{Site: "s", RefundID: 1, Attempt: 1, Key: "s/1/1"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	if n, err := demo.Settle(ctx); n != 0 || err == nil {
		t.Errorf("without a reporter: %d %v", n, err)
	}
	rep := &flakyReporter{errs: []error{errors.New("store unavailable"), deliverykit.E(deliverykit.KindFailedPrecondition, "refund transaction 1 is SUCCESS")}}
	demo.SetReporter(rep)
	var got []int
	for range 3 {
		n, _ := demo.Settle(ctx)
		got = append(got, n)
	}
	if diff := cmp.Diff([]int{0, 1, 0}, got); diff != "" || rep.calls != 2 {
		t.Errorf("settled per call (-want +got):\n%s (reports: %d)", diff, rep.calls)
	}
	if out, _ := demo.ExecuteRefund(ctx, RefundRequest{Site: "s", RefundID: 1, Attempt: 1, Key: "s/1/1"}); out.Result != RefundSucceeded {
		t.Errorf("the settled execution answers %+v", out)
	}
}

// TestRefundReportValidation: a report's fields are bounded; an unknown
// transaction or another site's is NotFound.
func TestRefundReportValidation(t *testing.T) {
	f := newExecFixture(t, nil)
	f.refundOf(t)
	cases := []struct {
		name string
		site string
		id   uint64
		rep  RefundReport
		want string
	}{
		{"foreignId too long", "site-a", 1, RefundReport{ForeignID: strings.Repeat("x", 257)}, "invalid argument"},
		{"reason too long", "site-a", 1, RefundReport{Reason: strings.Repeat("x", 2001)}, "invalid argument"},
		{"NUL", "site-a", 1, RefundReport{ForeignID: "a\x00b"}, "invalid argument"},
		{"unknown", "site-a", 9, RefundReport{}, "not found"},
		{"another site's", "site-b", 1, RefundReport{}, "not found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.ReportRefundSucceeded(f.ctx, tc.site, tc.id, tc.rep)
			if kindOf(err) != tc.want {
				t.Errorf("got %v, want %s", err, tc.want)
			}
		})
	}
}
