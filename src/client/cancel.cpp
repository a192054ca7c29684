#include "client/cancel.hpp"

namespace callwire::detail {

SyncCancel::SyncCancel(const std::stop_token& token) : token_(token) {
  if (!token_.stop_possible()) return;
  // One wake-up descriptor per calling thread, made at its first cancellable call.
  thread_local Result<net::WakeFd> thread_waker = net::WakeFd::create();
  waker_ = thread_waker ? &*thread_waker : nullptr;
  if (waker_) callback_.emplace(token_, Wake{waker_});
}

SyncCancel::~SyncCancel() {
  callback_.reset();
  if (waker_) waker_->clear();
}

std::unique_ptr<AsyncCancel> AsyncCancel::watch(const std::stop_token& token,
                                                std::function<void()> poke) {
  if (!token.stop_possible()) return nullptr;
  std::unique_ptr<AsyncCancel> c(new AsyncCancel(std::move(poke)));
  c->callback_.emplace(token, Mark{c.get()});
  return c;
}

}  // namespace callwire::detail
