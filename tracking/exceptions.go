package tracking

import "slices"

// ExceptionStatus is the kind of a parcel exception: something went wrong
// on the way that the customer or merchant may have to act on.
type ExceptionStatus string

// ExceptionStatus values: the one list of exceptions (see the package
// documentation, "Exceptions").
const (
	ExceptionDeliveryAttemptFailed ExceptionStatus = "DELIVERY_ATTEMPT_FAILED"
	ExceptionAddressProblem        ExceptionStatus = "ADDRESS_PROBLEM"
	ExceptionDamaged               ExceptionStatus = "DAMAGED"
	ExceptionLost                  ExceptionStatus = "LOST"
	ExceptionRefusedByReceiver     ExceptionStatus = "REFUSED_BY_RECEIVER"
	ExceptionHeldAtCustoms         ExceptionStatus = "HELD_AT_CUSTOMS"
	ExceptionNotCollected          ExceptionStatus = "NOT_COLLECTED"
	ExceptionReturnedToSender      ExceptionStatus = "RETURNED_TO_SENDER"
)

// ExceptionStatuses lists every ExceptionStatus, in the order of the
// package documentation's table.
var ExceptionStatuses = []ExceptionStatus{
	ExceptionDeliveryAttemptFailed, ExceptionAddressProblem, ExceptionDamaged, ExceptionLost,
	ExceptionRefusedByReceiver, ExceptionHeldAtCustoms, ExceptionNotCollected, ExceptionReturnedToSender,
}

// ParcelException is one exception of a parcel (PrivateParcel.exceptions).
type ParcelException struct {
	CreatedAt string          `json:"created_at"`
	Status    ExceptionStatus `json:"status"`
}

// MaxExceptions bounds a parcel's exceptions, as MaxAlerts bounds its
// alerts.
const MaxExceptions = 100

// impliedException is the exception a carrier's step or alert is on its
// own: a failed delivery attempt, and a parcel sent back to its sender.
func impliedException(ev *Event) ExceptionStatus {
	switch {
	case ev.Alert == AlertDeliveryAttemptFailed:
		return ExceptionDeliveryAttemptFailed
	case ev.Step == StepSentBack:
		return ExceptionReturnedToSender
	}
	return ""
}

// eventExceptions are the exceptions ev reports: the one it names and the
// one its step or alert implies, each once.
func eventExceptions(ev *Event) []ExceptionStatus {
	var out []ExceptionStatus
	if ev.Exception != "" {
		out = append(out, ev.Exception)
	}
	if x := impliedException(ev); x != "" && !slices.Contains(out, x) {
		out = append(out, x)
	}
	return out
}

// addException records an exception unless the same status was recorded
// at the same instant; exceptions stay sorted by created_at. It reports
// whether rec changed.
func addException(rec *parcelRecord, x ParcelException) bool {
	for _, e := range rec.Exceptions {
		if e.Status == x.Status && e.CreatedAt == x.CreatedAt {
			return false
		}
	}
	at, _ := parseTime(x.CreatedAt)
	pos := len(rec.Exceptions)
	for i, e := range rec.Exceptions {
		if t, _ := parseTime(e.CreatedAt); t.After(at) {
			pos = i
			break
		}
	}
	rec.Exceptions = slices.Insert(rec.Exceptions, pos, x)
	return true
}
