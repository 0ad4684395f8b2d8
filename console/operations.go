package console

import (
	"net/http"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/webhook"
)

// deliveriesShown is how many recent deliveries of each endpoint the
// operations page lists.
const deliveriesShown = 10

type endpointView struct {
	webhook.EndpointView
	Deliveries []webhook.Delivery
}

type operationsView struct {
	base
	Endpoints []endpointView
	Dead      []outbox.DeadEvent
	DeadMore  bool
	Webhooks  bool
	Outbox    bool
	Operator  bool
	// HasReady is set when the console has Options.Ready; NotReady is
	// then its error, empty when the server is ready.
	HasReady bool
	NotReady string
}

func (c *Console) operations(w http.ResponseWriter, r *http.Request, rq *request) error {
	v := operationsView{base: c.base(rq, "operations", rq.loc.T("operations.title")), Operator: rq.Role == Operator}
	v.Notice = notice(r, rq.loc)
	if c.opts.Ready != nil {
		v.HasReady = true
		if err := c.opts.Ready(r.Context()); err != nil {
			v.NotReady = clip(err.Error(), 300)
		}
	}
	if c.opts.Webhooks != nil {
		v.Webhooks = true
		eps, err := c.opts.Webhooks.Endpoints(r.Context(), rq.Site)
		if err != nil {
			return err
		}
		for _, ep := range eps {
			page, err := c.opts.Webhooks.Deliveries(r.Context(), rq.Site, ep.ID, webhook.DeliveriesQuery{Limit: deliveriesShown})
			if err != nil {
				return err
			}
			v.Endpoints = append(v.Endpoints, endpointView{EndpointView: ep, Deliveries: page.Deliveries})
		}
	}
	if c.opts.Outbox != nil {
		v.Outbox = true
		dead, err := c.opts.Outbox.Dead(r.Context(), rq.Site, "", deadShown)
		if err != nil {
			return err
		}
		v.Dead, v.DeadMore = dead, len(dead) == deadShown
	}
	c.render(w, r, http.StatusOK, "operations", v)
	return nil
}

// redeliver sends an event to an endpoint again.
func (c *Console) redeliver(w http.ResponseWriter, r *http.Request, rq *request) error {
	ep, ev := r.PathValue("endpoint"), r.PathValue("event")
	if len(ep) > maxQueryBytes || len(ev) > maxQueryBytes {
		return deliverykit.E(deliverykit.KindInvalidArgument, "endpoint: longer than 254 bytes")
	}
	if _, err := c.opts.Webhooks.Redeliver(r.Context(), rq.Site, ep, ev); err != nil {
		return err
	}
	return done(w, r, Path+"operations", "redelivered")
}

// retryEvent queues a dead event again.
func (c *Console) retryEvent(w http.ResponseWriter, r *http.Request, rq *request) error {
	id := r.PathValue("id")
	if id == "" || len(id) > maxQueryBytes {
		return deliverykit.E(deliverykit.KindInvalidArgument, "id: want 1 to 254 bytes")
	}
	if err := c.opts.Outbox.Retry(r.Context(), rq.Site, id); err != nil {
		return err
	}
	return done(w, r, Path+"operations", "retried")
}
