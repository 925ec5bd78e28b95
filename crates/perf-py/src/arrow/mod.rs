// SPDX-License-Identifier: GPL-2.0-only
//! The Arrow PyCapsule interface of `perf.sample_columns`
//! (`__arrow_c_schema__`, `__arrow_c_array__`, `__arrow_c_stream__`): the
//! columns as one Arrow struct array (a record batch), for pyarrow,
//! polars, DuckDB and other Arrow consumers.
//!
//! The numeric columns are not copied: each Arrow buffer is the
//! `array.array`'s memory (borrowed.rs). The columns indexing
//! `cols.names` (`dso`, `symbol`, `comm`) become dictionary arrays over
//! those names (the dictionary is the one copy); the per-frame columns
//! become large lists whose offsets are `callchain_offsets`.

mod borrowed;

use std::sync::Arc;

use arrow_array::ffi::{to_ffi, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{
    make_array, Array, RecordBatch, RecordBatchIterator, RecordBatchOptions, StringArray,
};
use arrow_data::ArrayData;
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyList, PyTuple};

/// The columns whose values index `cols.names`, one per sample.
const NAMED: [&str; 3] = ["dso", "symbol", "comm"];
/// The per-frame columns, sliced by `callchain_offsets`.
const PER_FRAME: [&str; 3] = ["callchain_ips", "callchain_dso", "callchain_symbol"];
/// Of the per-frame columns, those indexing `cols.names`.
const PER_FRAME_NAMED: [&str; 2] = ["callchain_dso", "callchain_symbol"];
/// Not a field: the offsets of the per-frame lists.
const OFFSETS: &str = "callchain_offsets";

/// What a batch's columns are made of.
pub struct Source<'a, 'py> {
    pub columns: &'a Bound<'py, PyDict>,
    pub len: usize,
    pub names: Option<&'a Bound<'py, PyList>>,
}

fn arrow_error(e: ArrowError) -> PyErr {
    PyValueError::new_err(format!("arrow: {e}"))
}

/// The Arrow type and width of an `array` type code.
fn primitive_type(code: &str) -> PyResult<(DataType, usize)> {
    match code {
        "Q" => Ok((DataType::UInt64, 8)),
        "I" => Ok((DataType::UInt32, 4)),
        "i" => Ok((DataType::Int32, 4)),
        _ => Err(PyValueError::new_err(format!(
            "no Arrow type for array type code '{code}'"
        ))),
    }
}

/// A primitive array over `column`'s memory (`data_type` overrides the
/// type its code gives, same width).
fn primitive(column: &Bound<'_, PyAny>, data_type: Option<DataType>) -> PyResult<ArrayData> {
    let code: String = column.getattr("typecode")?.extract()?;
    let (natural, width) = primitive_type(&code)?;
    let buffer = borrowed::buffer(column, width)?;
    ArrayData::builder(data_type.unwrap_or(natural))
        .len(buffer.len() / width)
        .add_buffer(buffer)
        .build()
        .map_err(arrow_error)
}

/// `cols.names` as an Arrow string array.
fn dictionary(names: &Bound<'_, PyList>) -> PyResult<ArrayData> {
    let names: Vec<String> = names.extract()?;
    Ok(StringArray::from_iter_values(names).into_data())
}

/// The `u32` indexes of `column` as a dictionary array over `names`.
fn named(column: &Bound<'_, PyAny>, names: Option<&ArrayData>) -> PyResult<ArrayData> {
    let keys = primitive(column, None)?;
    let Some(names) = names else {
        return Err(PyValueError::new_err("a named column without cols.names"));
    };
    let data_type = DataType::Dictionary(Box::new(DataType::UInt32), Box::new(DataType::Utf8));
    keys.into_builder()
        .data_type(data_type)
        .child_data(vec![names.clone()])
        .build()
        .map_err(arrow_error)
}

/// `values` as a large list array of `len` entries with `offsets`.
fn list(offsets: &Bound<'_, PyAny>, values: ArrayData, len: usize) -> PyResult<ArrayData> {
    let offsets = borrowed::buffer(offsets, 8)?;
    let item = Field::new("item", values.data_type().clone(), false);
    ArrayData::builder(DataType::LargeList(Arc::new(item)))
        .len(len)
        .add_buffer(offsets)
        .add_child_data(values)
        .build()
        .map_err(arrow_error)
}

/// The batch's fields and their arrays, in the columns' order.
fn fields(source: &Source<'_, '_>) -> PyResult<(Fields, Vec<ArrayData>)> {
    let names = source.names.map(dictionary).transpose()?;
    let offsets = source.columns.get_item(OFFSETS)?;
    let mut fields = Vec::new();
    let mut arrays = Vec::new();
    for (name, column) in source.columns.iter() {
        let name: String = name.extract()?;
        let is = |list: &[&str]| list.contains(&name.as_str());
        if name == OFFSETS {
            continue;
        }
        let data = if is(&PER_FRAME) {
            let Some(offsets) = &offsets else {
                return Err(PyValueError::new_err(format!(
                    "{name} is a list column in Arrow: read {OFFSETS} with it"
                )));
            };
            let values = if is(&PER_FRAME_NAMED) {
                named(&column, names.as_ref())?
            } else {
                primitive(&column, None)?
            };
            list(offsets, values, source.len)?
        } else if is(&NAMED) {
            named(&column, names.as_ref())?
        } else {
            primitive(&column, None)?
        };
        if data.len() != source.len {
            return Err(PyValueError::new_err(format!(
                "column {name} has {} values for {} samples",
                data.len(),
                source.len
            )));
        }
        fields.push(Field::new(name, data.data_type().clone(), false));
        arrays.push(data);
    }
    Ok((fields.into(), arrays))
}

/// The batch as one struct array.
fn struct_array(source: &Source<'_, '_>) -> PyResult<ArrayData> {
    let (fields, arrays) = fields(source)?;
    ArrayData::builder(DataType::Struct(fields))
        .len(source.len)
        .child_data(arrays)
        .build()
        .map_err(arrow_error)
}

/// `__arrow_c_schema__`: an `arrow_schema` capsule of the struct type.
pub fn schema_capsule<'py>(
    py: Python<'py>,
    source: &Source<'_, 'py>,
) -> PyResult<Bound<'py, PyCapsule>> {
    let data = struct_array(source)?;
    let schema = FFI_ArrowSchema::try_from(data.data_type()).map_err(arrow_error)?;
    PyCapsule::new_with_value(py, schema, c"arrow_schema")
}

/// `__arrow_c_array__`: the `(arrow_schema, arrow_array)` capsules of
/// the struct array.
pub fn array_capsules<'py>(
    py: Python<'py>,
    source: &Source<'_, 'py>,
) -> PyResult<Bound<'py, PyTuple>> {
    let data = struct_array(source)?;
    let (array, schema) = to_ffi(&data).map_err(arrow_error)?;
    let schema = PyCapsule::new_with_value(py, schema, c"arrow_schema")?;
    let array = PyCapsule::new_with_value(py, array, c"arrow_array")?;
    PyTuple::new(py, [schema.into_any(), array.into_any()])
}

/// `__arrow_c_stream__`: an `arrow_array_stream` capsule of one record
/// batch.
pub fn stream_capsule<'py>(
    py: Python<'py>,
    source: &Source<'_, 'py>,
) -> PyResult<Bound<'py, PyCapsule>> {
    let (fields, arrays) = fields(source)?;
    let schema = Arc::new(Schema::new(fields));
    let options = RecordBatchOptions::new().with_row_count(Some(source.len));
    let columns = arrays.into_iter().map(make_array).collect();
    let batch = RecordBatch::try_new_with_options(schema.clone(), columns, &options)
        .map_err(arrow_error)?;
    let reader = RecordBatchIterator::new([Ok(batch)], schema);
    let stream = FFI_ArrowArrayStream::new(Box::new(reader));
    PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
}
