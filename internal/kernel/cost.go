package kernel

import (
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
)

// Cost is what a turn's model calls cost, in Currency (an ISO 4217
// code), at the prices of their sources (llm.PriceOf).
type Cost struct {
	Amount   float64
	Currency string
}

// turnCost adds up the cost of a turn's model calls. It is known only
// while every call's price is, in one currency.
type turnCost struct {
	sum     Cost
	calls   int
	unknown bool
}

// add counts one call, made at at, that used u, at price (none when
// priced is false).
func (c *turnCost) add(price llm.Price, priced bool, u llm.Usage, at time.Time) {
	c.calls++
	switch {
	case !priced:
		c.unknown = true
	case c.calls == 1:
		c.sum = Cost{Amount: price.CostAt(u, at), Currency: price.CurrencyCode()}
	case c.sum.Currency != price.CurrencyCode():
		c.unknown = true
	default:
		c.sum.Amount += price.CostAt(u, at)
	}
}

// billedPrice is the price of a call through src asked for model asked
// and answered, the provider says, by model reported: the reported
// model's price when it has one (a dated version of the model asked for
// may cost otherwise), else the asked model's. A provider reporting a
// model name no price list knows cannot make its call free.
func billedPrice(src llm.Source, asked, reported string) (llm.Price, bool) {
	if reported != "" && reported != asked {
		if p, ok := llm.PriceOf(src, reported); ok {
			return p, true
		}
	}
	return llm.PriceOf(src, asked)
}

// total is the turn's cost, or nil when it is not known (no call was
// made, or one had no known price).
func (c *turnCost) total() *Cost {
	if c.unknown || c.calls == 0 {
		return nil
	}
	s := c.sum
	return &s
}

// currentSource is the provider's current source, when it has sources.
func (k *Kernel) currentSource() llm.Source {
	var src llm.Source
	if ws, ok := k.provider.(windowSource); ok {
		src, _ = ws.Current()
	}
	return src
}

// sourceNamed is the provider's source called name, when it has sources.
func (k *Kernel) sourceNamed(name string) (llm.Source, bool) {
	if ps, ok := k.provider.(interface {
		Source(string) (llm.Source, bool)
	}); ok {
		return ps.Source(name)
	}
	return llm.Source{}, false
}
