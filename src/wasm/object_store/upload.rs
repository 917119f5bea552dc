//! `RawObjectUpload`: an object being put ([`Upload`]), fed by TS from a
//! `ReadableStream` one `Uint8Array` at a time, each `write` resolving once
//! the chunks it completed are out and the window of unacknowledged chunks
//! has room, so memory stays bounded whatever the object's size. `finish`
//! stores the meta; `abort` (or a failed write) purges the chunks written.

use std::cell::RefCell;
use std::rc::Rc;

use bytes::Bytes;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::meta::packed;
use crate::error::Error;
use crate::jetstream::object_store::{PutErrorKind, Upload};
use crate::wasm::promise;

/// A put under way; calls take the upload for their future and give it back.
#[wasm_bindgen]
pub struct RawObjectUpload {
    upload: Rc<RefCell<Option<Upload>>>,
}

impl RawObjectUpload {
    pub(super) fn new(upload: Upload) -> Self {
        RawObjectUpload { upload: Rc::new(RefCell::new(Some(upload))) }
    }

    /// The upload, while no other call has it and the put has not ended.
    fn take(&self) -> Result<Upload, Error> {
        let taken = self.upload.borrow_mut().take();
        taken.ok_or(Error::ApiMisuse("the put ended, or a write is under way"))
    }
}

#[wasm_bindgen]
impl RawObjectUpload {
    /// Adds `data` to the object; resolves once there is room for more. A
    /// failed write ends the put (its chunks purged) with the error.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn write(&self, data: Vec<u8>) -> Result<Promise, JsValue> {
        let (mut upload, slot) = (self.take()?, self.upload.clone());
        Ok(promise(async move {
            match upload.write(Bytes::from(data)).await {
                Ok(()) => {
                    *slot.borrow_mut() = Some(upload);
                    Ok(JsValue::UNDEFINED)
                }
                Err(e) => Err(upload.fail(PutErrorKind::PublishChunks, e).await.into()),
            }
        }))
    }

    /// Sends what is left and the meta; resolves to the object's meta.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawEntries>")]
    pub fn finish(&self) -> Result<Promise, JsValue> {
        let upload = self.take()?;
        Ok(promise(async move {
            let (info, revision) = upload.finish().await?;
            packed(&info, revision)
        }))
    }

    /// Gives up (reading the object failed): resolves once the chunks
    /// written are purged, as far as the server lets it.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn abort(&self) -> Result<Promise, JsValue> {
        let upload = self.take()?;
        Ok(promise(async move {
            upload.fail(PutErrorKind::ReadChunks, Error::Closed).await;
            Ok(JsValue::UNDEFINED)
        }))
    }
}
