//! The wasm's global allocator: talc rather than std's dlmalloc, which is
//! larger and slower; every delivery allocates and frees its subjects. The
//! wasm is single-threaded, as talc's wasm allocator requires.

#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
