//! `RawObjectUpload`: an object being put ([`Upload`]), fed by TS from a
//! `ReadableStream` one `Uint8Array` at a time, each `write` resolving once
//! the chunks it completed are out and the window of unacknowledged chunks
//! has room, so memory stays bounded whatever the object's size. `finish`
//! stores the meta. TS purges what the put replaced, and on `abort` or a
//! failed write the chunks written (`chunks`): the wasm holds no purge.

use std::cell::RefCell;
use std::rc::Rc;

use bytes::Bytes;
use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use super::meta::packed;
use crate::error::Error;
use crate::jetstream::object_store::{PutErrorKind, Upload};
use crate::wasm::promise;

/// A put under way; calls take the upload for their future and give it back.
#[wasm_bindgen]
pub struct RawObjectUpload {
    upload: Rc<RefCell<Option<Upload>>>,
    chunks: String,
}

impl RawObjectUpload {
    pub(super) fn new(upload: Upload) -> Self {
        let chunks = upload.chunks().to_string();
        RawObjectUpload { upload: Rc::new(RefCell::new(Some(upload))), chunks }
    }

    /// The upload, while no other call has it and the put has not ended.
    fn take(&self) -> Result<Upload, Error> {
        let taken = self.upload.borrow_mut().take();
        taken.ok_or(Error::ApiMisuse("the put ended, or a write is under way"))
    }
}

#[wasm_bindgen]
impl RawObjectUpload {
    /// The subject of the put's chunks, to purge when it fails.
    #[wasm_bindgen(getter)]
    pub fn chunks(&self) -> String {
        self.chunks.clone()
    }

    /// Adds `data` to the object; resolves once there is room for more. A
    /// failed write ends the put with the error.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn write(&self, data: Vec<u8>) -> Result<Promise, JsValue> {
        let (mut upload, slot) = (self.take()?, self.upload.clone());
        Ok(promise(async move {
            match upload.write(Bytes::from(data)).await {
                Ok(()) => {
                    *slot.borrow_mut() = Some(upload);
                    Ok(JsValue::UNDEFINED)
                }
                Err(e) => Err(upload.settle(PutErrorKind::PublishChunks, e).await.into()),
            }
        }))
    }

    /// Sends what is left and the meta; resolves to the object's meta and
    /// the subjects of what it replaced, to purge.
    #[wasm_bindgen(unchecked_return_type = "Promise<[meta: RawEntries, purge: string[]]>")]
    pub fn finish(&self) -> Result<Promise, JsValue> {
        let upload = self.take()?;
        Ok(promise(async move {
            let (info, revision, purge) = upload.store_meta().await?;
            let purge: Array = purge.into_iter().map(JsValue::from).collect();
            let meta = packed(&info, revision)?;
            Ok(Array::of2(&meta, &purge))
        }))
    }

    /// Gives up (reading the object failed), once the chunks in flight are answered.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn abort(&self) -> Result<Promise, JsValue> {
        let upload = self.take()?;
        Ok(promise(async move {
            upload.settle(PutErrorKind::ReadChunks, Error::Closed).await;
            Ok(JsValue::UNDEFINED)
        }))
    }
}
