#include <napi.h>
Napi::Object Init(Napi::Env, Napi::Object e){return e;}
NODE_API_MODULE(b, Init)
