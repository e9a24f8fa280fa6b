// The few libuv calls bench/completion makes (a bare async handle, to compare with a threadsafe
// function), declared here: node-api-headers ships no uv.h.
// The node binary exports them, and libuv 1.x keeps this ABI: every handle starts with its `data`
// pointer, and uv_handle_size gives the size of a handle at run time, so none is laid out here.
#pragma once
#include <cstddef>

extern "C" {
struct uv_loop_s;
struct uv_handle_s;
struct uv_async_s;
using uv_async_cb = void (*)(uv_async_s*);
using uv_close_cb = void (*)(uv_handle_s*);
size_t uv_handle_size(int type);
int uv_async_init(uv_loop_s* loop, uv_async_s* async, uv_async_cb callback);
int uv_async_send(uv_async_s* async);
void uv_close(uv_handle_s* handle, uv_close_cb callback);
}

namespace uv {

constexpr int kAsync = 1;  // UV_ASYNC, first in libuv's handle types

// The user data every handle begins with.
inline void*& data(void* handle) { return *static_cast<void**>(handle); }

}  // namespace uv
