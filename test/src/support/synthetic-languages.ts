/**
 * Modules in the languages beyond the synthetic repository's first four
 * (tree.ts), each of about the same size and shape: a type with a few
 * documented methods and a free function, so every language's chunker and
 * symbol extraction take part in the indexing benchmark.
 */

export interface SyntheticModule {
  path: string;
  text: string;
}

type Generator = (i: number, pkg: string) => SyntheticModule;

const c: Generator = (i, pkg) => ({
  path: `c/${pkg}/buffer${i}.c`,
  text: `#include <stdlib.h>
#include <string.h>

/* A growable byte buffer for module ${i}. */
struct buffer${i} {
  char *data;
  size_t len;
  size_t cap;
};

/* Appends n bytes, growing the buffer when full. */
int buffer${i}_append(struct buffer${i} *b, const char *src, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 64;
    while (cap < b->len + n) cap *= 2;
    char *grown = realloc(b->data, cap);
    if (!grown) return -1;
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, src, n);
  b->len += n;
  return 0;
}

/* Frees the buffer's memory. */
void buffer${i}_free(struct buffer${i} *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}
`,
});

const cpp: Generator = (i, pkg) => ({
  path: `cpp/${pkg}/cache${i}.cc`,
  text: `#include <string>
#include <unordered_map>

namespace ${pkg} {

// A least-recently-used cache of strings for module ${i}.
class Cache${i} {
 public:
  explicit Cache${i}(size_t capacity) : capacity_(capacity) {}

  // Returns the value for key, or an empty string.
  std::string get(const std::string& key) const {
    auto it = entries_.find(key);
    if (it == entries_.end()) {
      return "";
    }
    return it->second;
  }

  // Stores a value, evicting when full.
  void put(const std::string& key, const std::string& value) {
    if (entries_.size() >= capacity_) {
      entries_.erase(entries_.begin());
    }
    entries_[key] = value;
  }

 private:
  size_t capacity_;
  std::unordered_map<std::string, std::string> entries_;
};

}  // namespace ${pkg}
`,
});

const csharp: Generator = (i, pkg) => ({
  path: `cs/${pkg}/InvoiceService${i}.cs`,
  text: `using System.Collections.Generic;
using System.Linq;

namespace Shop.${pkg};

/// <summary>Computes invoices for tenant ${i}.</summary>
public class InvoiceService${i}
{
    private readonly List<decimal> lines = new();

    /// <summary>Adds a line to the invoice.</summary>
    public void AddLine(decimal amount)
    {
        if (amount <= 0)
        {
            throw new System.ArgumentException("amount must be positive");
        }
        lines.Add(amount);
    }

    /// <summary>Total of all lines with tax.</summary>
    public decimal Total(decimal taxRate)
    {
        var net = lines.Sum();
        var tax = net * taxRate;
        return System.Math.Round(net + tax, 2);
    }
}
`,
});

const ruby: Generator = (i, pkg) => ({
  path: `rb/${pkg}/order_${i}.rb`,
  text: `module Shop
  # Orders placed by customer ${i}.
  class Order${i}
    def initialize(items)
      @items = items
    end

    # Sum of the item prices, with the bulk discount.
    def total
      sum = @items.sum(&:price)
      discount = sum > 100 ? 5 : 0
      (sum - discount).round(2)
    end

    # Whether every item is in stock.
    def available?
      @items.all? do |item|
        item.stock.positive?
      end
    end
  end
end
`,
});

const php: Generator = (i, pkg) => ({
  path: `php/${pkg}/Mailer${i}.php`,
  text: `<?php

namespace App\\${pkg};

/**
 * Sends notification mails for module ${i}.
 */
class Mailer${i}
{
    private array $queue = [];

    /** Queues a message for delivery. */
    public function queue(string $to, string $subject): void
    {
        if ($to === '') {
            throw new \\InvalidArgumentException('recipient required');
        }
        $this->queue[] = [$to, $subject];
    }

    /** Delivers every queued message. */
    public function flush(): int
    {
        $sent = count($this->queue);
        $this->queue = [];
        return $sent;
    }
}
`,
});

const kotlin: Generator = (i, pkg) => ({
  path: `kt/${pkg}/Cart${i}.kt`,
  text: `package com.acme.${pkg}

/** A shopping cart for session ${i}. */
class Cart${i}(private val items: MutableList<Item> = mutableListOf()) {
    /** Adds an item, quantity times. */
    fun add(item: Item, quantity: Int = 1) {
        require(quantity > 0) { "quantity must be positive" }
        repeat(quantity) {
            items.add(item)
        }
    }

    /** Total price of the cart. */
    fun total(): Double {
        var sum = 0.0
        for (item in items) {
            sum += item.price
        }
        return sum
    }
}

fun emptyCart${i}(): Cart${i} = Cart${i}()
`,
});

const scala: Generator = (i, pkg) => ({
  path: `scala/${pkg}/Stats${i}.scala`,
  text: `package com.acme.${pkg}

/** Running statistics for series ${i}. */
class Stats${i}(values: Seq[Double]) {
  /** Arithmetic mean. */
  def mean: Double = {
    if (values.isEmpty) 0.0
    else values.sum / values.size
  }

  /** Population variance. */
  def variance: Double = {
    val m = mean
    val squares = values.map(v => (v - m) * (v - m))
    if (values.isEmpty) 0.0 else squares.sum / values.size
  }
}

object Stats${i} {
  def of(values: Double*): Stats${i} = new Stats${i}(values)
}
`,
});

const shell: Generator = (i, pkg) => ({
  path: `scripts/${pkg}/deploy${i}.sh`,
  text: `#!/usr/bin/env bash
set -euo pipefail

# Builds the image for service ${i}.
build_image() {
  local tag="$1"
  docker build -t "service${i}:\${tag}" .
  echo "built \${tag}"
}

# Rolls the deployment out and waits for it.
deploy() {
  local tag="$1"
  kubectl set image deployment/service${i} app="service${i}:\${tag}"
  kubectl rollout status deployment/service${i} --timeout=120s
}

build_image "$(git rev-parse --short HEAD)"
deploy "$(git rev-parse --short HEAD)"
`,
});

const lua: Generator = (i, pkg) => ({
  path: `lua/${pkg}/inventory${i}.lua`,
  text: `local M = {}

-- Stock levels for warehouse ${i}.
function M.new()
  return { items = {}, count = 0 }
end

-- Adds quantity of an item to the stock.
function M.add(stock, name, quantity)
  if quantity <= 0 then
    error("quantity must be positive")
  end
  stock.items[name] = (stock.items[name] or 0) + quantity
  stock.count = stock.count + quantity
end

-- Removes an item entirely.
function M.remove(stock, name)
  local n = stock.items[name] or 0
  stock.items[name] = nil
  stock.count = stock.count - n
  return n
end

return M
`,
});

const swift: Generator = (i, pkg) => ({
  path: `swift/${pkg}/Playlist${i}.swift`,
  text: `import Foundation

/// A playlist of tracks for user ${i}.
struct Playlist${i} {
    private(set) var tracks: [String] = []

    /// Appends a track unless it is already there.
    mutating func add(_ track: String) {
        guard !tracks.contains(track) else { return }
        tracks.append(track)
    }

    /// Total duration in seconds.
    func duration(lengths: [String: Int]) -> Int {
        tracks.reduce(0) { $0 + (lengths[$1] ?? 0) }
    }
}
`,
});

const yaml: Generator = (i, pkg) => ({
  path: `deploy/${pkg}/service${i}.yaml`,
  text: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: service${i}
  labels:
    app: service${i}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: service${i}
  template:
    metadata:
      labels:
        app: service${i}
    spec:
      containers:
        - name: app
          image: service${i}:latest
          ports:
            - containerPort: 8080
          resources:
            limits:
              memory: 256Mi
`,
});

/** The generators, in the order the synthetic repository cycles through them after its first four. */
export const MORE_LANGUAGES: readonly Generator[] = [
  c,
  cpp,
  csharp,
  ruby,
  php,
  kotlin,
  scala,
  shell,
  lua,
  swift,
  yaml,
];
