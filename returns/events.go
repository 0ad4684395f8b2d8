package returns

import (
	"fmt"
	"strconv"
	"time"

	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
)

// returnSubject is the id of return id as events name it: the id the
// returns API shows.
func returnSubject(id uint64) string { return strconv.FormatUint(id, 10) }

// emit writes an event of each of types, in that order, for a change of
// return r of order o (as stored in tx) at now; prev is r's status before
// the change. It runs inside the change's transaction and keeps nothing
// outside it, so a retried transaction writes its events again, once (the
// outbox draws their ids inside the transaction too).
func (s *Service) emit(tx storage.Tx, site string, o orderRecord, r returnRecord, prev ReturnStatus, now time.Time, types ...event.Type) error {
	if len(types) == 0 {
		return nil
	}
	c, err := s.returnChanged(tx, site, o, r, prev, now)
	if err != nil {
		return err
	}
	for _, t := range types {
		var p event.Payload
		switch t {
		case event.TypeReturnCreated:
			p = event.ReturnCreated(c)
		case event.TypeReturnStatusChanged:
			p = event.ReturnStatusChanged(c)
		case event.TypeReturnItemsReceived:
			p = event.ReturnItemsReceived(c)
		case event.TypeRefundChanged:
			p = event.RefundChanged(c)
		case event.TypeReturnComplaintDecided:
			p = event.ReturnComplaintDecided(c)
		default:
			return fmt.Errorf("returns: %s is not an event of a return", t)
		}
		ev, err := event.New("", site, c.ReturnID, now, p)
		if err != nil {
			return err
		}
		if err := outbox.Add(tx, ev); err != nil {
			return err
		}
	}
	return nil
}
