/* Generated from the JSON Schema by scripts/generate-types.ts (npm run types). Do not edit. */
"use strict";
module.exports = validate10;
module.exports.default = validate10;
const schema11 = {"$schema":"http://json-schema.org/draft-07/schema#","$id":"https://portal.example.net/schemas/node-config.schema.json","title":"NodeConfig","description":"Configuration of one Portal node: its outlets (relay and tcp-outlet, or tcp-outlets) and its inlets (tcp-inlet, or tcp-inlets), each one end of a portal. Given as JSON to the stacks and as YAML to containers.","type":"object","additionalProperties":false,"properties":{"relay":{"description":"Relay name the outlet registers; equals its ticket's --relay.","$ref":"#/definitions/name"},"tcp-outlet":{"$ref":"#/definitions/tcpOutlet"},"tcp-outlets":{"description":"Several outlets, by portal name; instead of relay and tcp-outlet.","type":"object","minProperties":1,"propertyNames":{"$ref":"#/definitions/name"},"additionalProperties":{"$ref":"#/definitions/namedTcpOutlet"}},"tcp-inlet":{"$ref":"#/definitions/tcpInlet"},"tcp-inlets":{"description":"Several inlets, by portal name; instead of tcp-inlet.","type":"object","minProperties":1,"propertyNames":{"$ref":"#/definitions/name"},"additionalProperties":{"$ref":"#/definitions/namedTcpInlet"}},"http-server-port":{"description":"Port of the node's local HTTP status server on 127.0.0.1 (0 lets the system choose; portal node show finds it).","type":"integer","minimum":0,"maximum":65535},"revocation-max-age":{"description":"Opt-in bound: the node opens and accepts no new session while its list of revoked members is older than this (the controller unreachable for longer), such as 5m. Unset: a node that cannot hear the controller keeps carrying traffic.","type":"string","minLength":1,"maxLength":40},"ticket":{"description":"Enrollment ticket (container YAML only).","type":"string"}},"definitions":{"name":{"type":"string","pattern":"^[a-z0-9][a-z0-9-]{0,62}$","x-expected":"a name of lower-case letters, digits and dashes"},"allow":{"description":"Who this side admits: an attribute name the peer must carry (postgres-inlet), or an expression over the peer's attributes with and, or, not, parentheses, KEY = \"v\" and KEY in [\"a\", \"b\"] (docs/policies.md). Anything else admits nobody; the node refuses to start with it and names the column.","type":"string","minLength":1,"maxLength":1024,"x-expected":"an attribute name such as postgres-inlet, or an expression such as team = \"ops\" and env = \"prod\""},"tcpOutlet":{"title":"TcpOutletConfig","type":"object","additionalProperties":false,"required":["to","allow"],"properties":{"to":{"description":"Target address host:port. May contain an endpoint placeholder such as $POSTGRES_ENDPOINT (an upper-case name after $), replaced when the stack boots.","type":"string","pattern":"^(\\$[A-Z_]+|[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?$","x-expected":"a host:port address such as db.internal:5432"},"allow":{"description":"Who the outlet admits: an attribute the inlet must have, or an expression over its attributes.","$ref":"#/definitions/allow"},"tls":{"description":"Connect to the target over TLS.","type":"boolean"}},"description":"The node's one outlet, named after its relay. A node with several outlets uses tcp-outlets instead."},"tcpInlet":{"title":"TcpInletConfig","type":"object","additionalProperties":false,"required":["from","via","allow"],"properties":{"from":{"description":"Local listen address address:port.","type":"string","pattern":"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$","x-expected":"a listen address such as 127.0.0.1:15432"},"via":{"description":"Relay name through which the outlet is reached.","$ref":"#/definitions/name"},"allow":{"description":"Who the inlet admits: an attribute the outlet must have, or an expression over its attributes.","$ref":"#/definitions/allow"},"tls":{"description":"Serve TLS to clients with the project-signed certificate.","type":"boolean"},"direct":{"description":"The direct path: where this inlet accepts outlets that dial it, with the same mutual TLS and allow checks as through a relay. true (the default): loopback (127.0.0.1) on a port the system chooses, which only an outlet on this machine reaches; host:port: that address, which outlets on other machines reach (this machine's address, or 0.0.0.0 for every one; docs/ports.md); false: relays only.","type":["boolean","string"],"pattern":"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$","x-expected":"true, false, or a listen address such as 0.0.0.0:4200"}},"description":"The node's one inlet, named after its via. A node with several inlets uses tcp-inlets instead."},"namedTcpOutlet":{"title":"NamedTcpOutletConfig","type":"object","additionalProperties":false,"required":["to","allow"],"properties":{"relay":{"description":"Relay name this outlet registers; one the node's ticket grants. @default the portal's name","$ref":"#/definitions/name"},"to":{"description":"Target address host:port. May contain an endpoint placeholder such as $POSTGRES_ENDPOINT (an upper-case name after $), replaced when the stack boots.","type":"string","pattern":"^(\\$[A-Z_]+|[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?$","x-expected":"a host:port address such as db.internal:5432"},"allow":{"description":"Who the outlet admits: an attribute the inlet must have, or an expression over its attributes.","$ref":"#/definitions/allow"},"tls":{"description":"Connect to the target over TLS.","type":"boolean"}},"description":"One outlet of several: its portal's target, allow, and the relay it registers (by default the portal's name)."},"namedTcpInlet":{"title":"NamedTcpInletConfig","type":"object","additionalProperties":false,"required":["from","allow"],"properties":{"from":{"description":"Local listen address address:port.","type":"string","pattern":"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$","x-expected":"a listen address such as 127.0.0.1:15432"},"via":{"description":"Relay name through which the outlet is reached. @default the portal's name","$ref":"#/definitions/name"},"allow":{"description":"Who the inlet admits: an attribute the outlet must have, or an expression over its attributes.","$ref":"#/definitions/allow"},"tls":{"description":"Serve TLS to clients with the project-signed certificate.","type":"boolean"},"direct":{"description":"The direct path: where this inlet accepts outlets that dial it, with the same mutual TLS and allow checks as through a relay. true (the default): loopback (127.0.0.1) on a port the system chooses, which only an outlet on this machine reaches; host:port: that address, which outlets on other machines reach (this machine's address, or 0.0.0.0 for every one; docs/ports.md); false: relays only.","type":["boolean","string"],"pattern":"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$","x-expected":"true, false, or a listen address such as 0.0.0.0:4200"}},"description":"One inlet of several: where it listens, which relay reaches its outlet (by default the portal's name), and the attribute the outlet must have."}}};
const schema12 = {"type":"string","pattern":"^[a-z0-9][a-z0-9-]{0,62}$","x-expected":"a name of lower-case letters, digits and dashes"};
const pattern0 = new RegExp("^[a-z0-9][a-z0-9-]{0,62}$", "u");
const schema13 = {"title":"TcpOutletConfig","type":"object","additionalProperties":false,"required":["to","allow"],"properties":{"to":{"description":"Target address host:port. May contain an endpoint placeholder such as $POSTGRES_ENDPOINT (an upper-case name after $), replaced when the stack boots.","type":"string","pattern":"^(\\$[A-Z_]+|[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?$","x-expected":"a host:port address such as db.internal:5432"},"allow":{"description":"Who the outlet admits: an attribute the inlet must have, or an expression over its attributes.","$ref":"#/definitions/allow"},"tls":{"description":"Connect to the target over TLS.","type":"boolean"}},"description":"The node's one outlet, named after its relay. A node with several outlets uses tcp-outlets instead."};
const schema14 = {"description":"Who this side admits: an attribute name the peer must carry (postgres-inlet), or an expression over the peer's attributes with and, or, not, parentheses, KEY = \"v\" and KEY in [\"a\", \"b\"] (docs/policies.md). Anything else admits nobody; the node refuses to start with it and names the column.","type":"string","minLength":1,"maxLength":1024,"x-expected":"an attribute name such as postgres-inlet, or an expression such as team = \"ops\" and env = \"prod\""};
const pattern1 = new RegExp("^(\\$[A-Z_]+|[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?$", "u");
const func2 = require("ajv/dist/runtime/ucs2length").default;

function validate11(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.to === undefined){
const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "to"},message:"must have required property '"+"to"+"'",schema:schema13.required,parentSchema:schema13,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
if(data.allow === undefined){
const err1 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "allow"},message:"must have required property '"+"allow"+"'",schema:schema13.required,parentSchema:schema13,data};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
for(const key0 in data){
if(!(((key0 === "to") || (key0 === "allow")) || (key0 === "tls"))){
const err2 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema13,data};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
}
if(data.to !== undefined){
let data0 = data.to;
if(typeof data0 === "string"){
if(!pattern1.test(data0)){
const err3 = {instancePath:instancePath+"/to",schemaPath:"#/properties/to/pattern",keyword:"pattern",params:{pattern: "^(\\$[A-Z_]+|[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?$"},message:"must match pattern \""+"^(\\$[A-Z_]+|[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?$"+"\"",schema:"^(\\$[A-Z_]+|[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?$",parentSchema:schema13.properties.to,data:data0};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
else {
const err4 = {instancePath:instancePath+"/to",schemaPath:"#/properties/to/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema13.properties.to.type,parentSchema:schema13.properties.to,data:data0};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
if(data.allow !== undefined){
let data1 = data.allow;
if(typeof data1 === "string"){
if(func2(data1) > 1024){
const err5 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/maxLength",keyword:"maxLength",params:{limit: 1024},message:"must NOT have more than 1024 characters",schema:1024,parentSchema:schema14,data:data1};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
if(func2(data1) < 1){
const err6 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema14,data:data1};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
else {
const err7 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.type,parentSchema:schema14,data:data1};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
if(data.tls !== undefined){
let data2 = data.tls;
if(typeof data2 !== "boolean"){
const err8 = {instancePath:instancePath+"/tls",schemaPath:"#/properties/tls/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema13.properties.tls.type,parentSchema:schema13.properties.tls,data:data2};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
}
}
else {
const err9 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema13.type,parentSchema:schema13,data};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
validate11.errors = vErrors;
return errors === 0;
}

const schema16 = {"title":"NamedTcpOutletConfig","type":"object","additionalProperties":false,"required":["to","allow"],"properties":{"relay":{"description":"Relay name this outlet registers; one the node's ticket grants. @default the portal's name","$ref":"#/definitions/name"},"to":{"description":"Target address host:port. May contain an endpoint placeholder such as $POSTGRES_ENDPOINT (an upper-case name after $), replaced when the stack boots.","type":"string","pattern":"^(\\$[A-Z_]+|[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?$","x-expected":"a host:port address such as db.internal:5432"},"allow":{"description":"Who the outlet admits: an attribute the inlet must have, or an expression over its attributes.","$ref":"#/definitions/allow"},"tls":{"description":"Connect to the target over TLS.","type":"boolean"}},"description":"One outlet of several: its portal's target, allow, and the relay it registers (by default the portal's name)."};

function validate13(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.to === undefined){
const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "to"},message:"must have required property '"+"to"+"'",schema:schema16.required,parentSchema:schema16,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
if(data.allow === undefined){
const err1 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "allow"},message:"must have required property '"+"allow"+"'",schema:schema16.required,parentSchema:schema16,data};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
for(const key0 in data){
if(!((((key0 === "relay") || (key0 === "to")) || (key0 === "allow")) || (key0 === "tls"))){
const err2 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema16,data};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
}
if(data.relay !== undefined){
let data0 = data.relay;
if(typeof data0 === "string"){
if(!pattern0.test(data0)){
const err3 = {instancePath:instancePath+"/relay",schemaPath:"#/definitions/name/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9-]{0,62}$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9-]{0,62}$"+"\"",schema:"^[a-z0-9][a-z0-9-]{0,62}$",parentSchema:schema12,data:data0};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
else {
const err4 = {instancePath:instancePath+"/relay",schemaPath:"#/definitions/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.type,parentSchema:schema12,data:data0};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
if(data.to !== undefined){
let data1 = data.to;
if(typeof data1 === "string"){
if(!pattern1.test(data1)){
const err5 = {instancePath:instancePath+"/to",schemaPath:"#/properties/to/pattern",keyword:"pattern",params:{pattern: "^(\\$[A-Z_]+|[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?$"},message:"must match pattern \""+"^(\\$[A-Z_]+|[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?$"+"\"",schema:"^(\\$[A-Z_]+|[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?$",parentSchema:schema16.properties.to,data:data1};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
}
else {
const err6 = {instancePath:instancePath+"/to",schemaPath:"#/properties/to/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema16.properties.to.type,parentSchema:schema16.properties.to,data:data1};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
if(data.allow !== undefined){
let data2 = data.allow;
if(typeof data2 === "string"){
if(func2(data2) > 1024){
const err7 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/maxLength",keyword:"maxLength",params:{limit: 1024},message:"must NOT have more than 1024 characters",schema:1024,parentSchema:schema14,data:data2};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
if(func2(data2) < 1){
const err8 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema14,data:data2};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
}
else {
const err9 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.type,parentSchema:schema14,data:data2};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
if(data.tls !== undefined){
let data3 = data.tls;
if(typeof data3 !== "boolean"){
const err10 = {instancePath:instancePath+"/tls",schemaPath:"#/properties/tls/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema16.properties.tls.type,parentSchema:schema16.properties.tls,data:data3};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
}
}
else {
const err11 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema16.type,parentSchema:schema16,data};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
validate13.errors = vErrors;
return errors === 0;
}

const schema19 = {"title":"TcpInletConfig","type":"object","additionalProperties":false,"required":["from","via","allow"],"properties":{"from":{"description":"Local listen address address:port.","type":"string","pattern":"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$","x-expected":"a listen address such as 127.0.0.1:15432"},"via":{"description":"Relay name through which the outlet is reached.","$ref":"#/definitions/name"},"allow":{"description":"Who the inlet admits: an attribute the outlet must have, or an expression over its attributes.","$ref":"#/definitions/allow"},"tls":{"description":"Serve TLS to clients with the project-signed certificate.","type":"boolean"},"direct":{"description":"The direct path: where this inlet accepts outlets that dial it, with the same mutual TLS and allow checks as through a relay. true (the default): loopback (127.0.0.1) on a port the system chooses, which only an outlet on this machine reaches; host:port: that address, which outlets on other machines reach (this machine's address, or 0.0.0.0 for every one; docs/ports.md); false: relays only.","type":["boolean","string"],"pattern":"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$","x-expected":"true, false, or a listen address such as 0.0.0.0:4200"}},"description":"The node's one inlet, named after its via. A node with several inlets uses tcp-inlets instead."};
const pattern5 = new RegExp("^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$", "u");

function validate15(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.from === undefined){
const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "from"},message:"must have required property '"+"from"+"'",schema:schema19.required,parentSchema:schema19,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
if(data.via === undefined){
const err1 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "via"},message:"must have required property '"+"via"+"'",schema:schema19.required,parentSchema:schema19,data};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
if(data.allow === undefined){
const err2 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "allow"},message:"must have required property '"+"allow"+"'",schema:schema19.required,parentSchema:schema19,data};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
for(const key0 in data){
if(!(((((key0 === "from") || (key0 === "via")) || (key0 === "allow")) || (key0 === "tls")) || (key0 === "direct"))){
const err3 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema19,data};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
if(data.from !== undefined){
let data0 = data.from;
if(typeof data0 === "string"){
if(!pattern5.test(data0)){
const err4 = {instancePath:instancePath+"/from",schemaPath:"#/properties/from/pattern",keyword:"pattern",params:{pattern: "^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$"},message:"must match pattern \""+"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$"+"\"",schema:"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$",parentSchema:schema19.properties.from,data:data0};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
else {
const err5 = {instancePath:instancePath+"/from",schemaPath:"#/properties/from/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema19.properties.from.type,parentSchema:schema19.properties.from,data:data0};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
}
if(data.via !== undefined){
let data1 = data.via;
if(typeof data1 === "string"){
if(!pattern0.test(data1)){
const err6 = {instancePath:instancePath+"/via",schemaPath:"#/definitions/name/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9-]{0,62}$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9-]{0,62}$"+"\"",schema:"^[a-z0-9][a-z0-9-]{0,62}$",parentSchema:schema12,data:data1};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
else {
const err7 = {instancePath:instancePath+"/via",schemaPath:"#/definitions/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.type,parentSchema:schema12,data:data1};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
if(data.allow !== undefined){
let data2 = data.allow;
if(typeof data2 === "string"){
if(func2(data2) > 1024){
const err8 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/maxLength",keyword:"maxLength",params:{limit: 1024},message:"must NOT have more than 1024 characters",schema:1024,parentSchema:schema14,data:data2};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
if(func2(data2) < 1){
const err9 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema14,data:data2};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
else {
const err10 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.type,parentSchema:schema14,data:data2};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
}
if(data.tls !== undefined){
let data3 = data.tls;
if(typeof data3 !== "boolean"){
const err11 = {instancePath:instancePath+"/tls",schemaPath:"#/properties/tls/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema19.properties.tls.type,parentSchema:schema19.properties.tls,data:data3};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
}
if(data.direct !== undefined){
let data4 = data.direct;
if((typeof data4 !== "boolean") && (typeof data4 !== "string")){
const err12 = {instancePath:instancePath+"/direct",schemaPath:"#/properties/direct/type",keyword:"type",params:{type: schema19.properties.direct.type},message:"must be boolean,string",schema:schema19.properties.direct.type,parentSchema:schema19.properties.direct,data:data4};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
if(typeof data4 === "string"){
if(!pattern5.test(data4)){
const err13 = {instancePath:instancePath+"/direct",schemaPath:"#/properties/direct/pattern",keyword:"pattern",params:{pattern: "^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$"},message:"must match pattern \""+"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$"+"\"",schema:"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$",parentSchema:schema19.properties.direct,data:data4};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
}
}
}
else {
const err14 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema19.type,parentSchema:schema19,data};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
validate15.errors = vErrors;
return errors === 0;
}

const schema23 = {"title":"NamedTcpInletConfig","type":"object","additionalProperties":false,"required":["from","allow"],"properties":{"from":{"description":"Local listen address address:port.","type":"string","pattern":"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$","x-expected":"a listen address such as 127.0.0.1:15432"},"via":{"description":"Relay name through which the outlet is reached. @default the portal's name","$ref":"#/definitions/name"},"allow":{"description":"Who the inlet admits: an attribute the outlet must have, or an expression over its attributes.","$ref":"#/definitions/allow"},"tls":{"description":"Serve TLS to clients with the project-signed certificate.","type":"boolean"},"direct":{"description":"The direct path: where this inlet accepts outlets that dial it, with the same mutual TLS and allow checks as through a relay. true (the default): loopback (127.0.0.1) on a port the system chooses, which only an outlet on this machine reaches; host:port: that address, which outlets on other machines reach (this machine's address, or 0.0.0.0 for every one; docs/ports.md); false: relays only.","type":["boolean","string"],"pattern":"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$","x-expected":"true, false, or a listen address such as 0.0.0.0:4200"}},"description":"One inlet of several: where it listens, which relay reaches its outlet (by default the portal's name), and the attribute the outlet must have."};

function validate17(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.from === undefined){
const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "from"},message:"must have required property '"+"from"+"'",schema:schema23.required,parentSchema:schema23,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
if(data.allow === undefined){
const err1 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "allow"},message:"must have required property '"+"allow"+"'",schema:schema23.required,parentSchema:schema23,data};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
for(const key0 in data){
if(!(((((key0 === "from") || (key0 === "via")) || (key0 === "allow")) || (key0 === "tls")) || (key0 === "direct"))){
const err2 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema23,data};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
}
if(data.from !== undefined){
let data0 = data.from;
if(typeof data0 === "string"){
if(!pattern5.test(data0)){
const err3 = {instancePath:instancePath+"/from",schemaPath:"#/properties/from/pattern",keyword:"pattern",params:{pattern: "^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$"},message:"must match pattern \""+"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$"+"\"",schema:"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$",parentSchema:schema23.properties.from,data:data0};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
else {
const err4 = {instancePath:instancePath+"/from",schemaPath:"#/properties/from/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema23.properties.from.type,parentSchema:schema23.properties.from,data:data0};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
if(data.via !== undefined){
let data1 = data.via;
if(typeof data1 === "string"){
if(!pattern0.test(data1)){
const err5 = {instancePath:instancePath+"/via",schemaPath:"#/definitions/name/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9-]{0,62}$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9-]{0,62}$"+"\"",schema:"^[a-z0-9][a-z0-9-]{0,62}$",parentSchema:schema12,data:data1};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
}
else {
const err6 = {instancePath:instancePath+"/via",schemaPath:"#/definitions/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.type,parentSchema:schema12,data:data1};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
if(data.allow !== undefined){
let data2 = data.allow;
if(typeof data2 === "string"){
if(func2(data2) > 1024){
const err7 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/maxLength",keyword:"maxLength",params:{limit: 1024},message:"must NOT have more than 1024 characters",schema:1024,parentSchema:schema14,data:data2};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
if(func2(data2) < 1){
const err8 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema14,data:data2};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
}
else {
const err9 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.type,parentSchema:schema14,data:data2};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
if(data.tls !== undefined){
let data3 = data.tls;
if(typeof data3 !== "boolean"){
const err10 = {instancePath:instancePath+"/tls",schemaPath:"#/properties/tls/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema23.properties.tls.type,parentSchema:schema23.properties.tls,data:data3};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
}
if(data.direct !== undefined){
let data4 = data.direct;
if((typeof data4 !== "boolean") && (typeof data4 !== "string")){
const err11 = {instancePath:instancePath+"/direct",schemaPath:"#/properties/direct/type",keyword:"type",params:{type: schema23.properties.direct.type},message:"must be boolean,string",schema:schema23.properties.direct.type,parentSchema:schema23.properties.direct,data:data4};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
if(typeof data4 === "string"){
if(!pattern5.test(data4)){
const err12 = {instancePath:instancePath+"/direct",schemaPath:"#/properties/direct/pattern",keyword:"pattern",params:{pattern: "^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$"},message:"must match pattern \""+"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$"+"\"",schema:"^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$",parentSchema:schema23.properties.direct,data:data4};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
}
}
}
else {
const err13 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema23.type,parentSchema:schema23,data};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
validate17.errors = vErrors;
return errors === 0;
}


function validate10(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
/*# sourceURL="https://portal.example.net/schemas/node-config.schema.json" */;
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
for(const key0 in data){
if(!((((((((key0 === "relay") || (key0 === "tcp-outlet")) || (key0 === "tcp-outlets")) || (key0 === "tcp-inlet")) || (key0 === "tcp-inlets")) || (key0 === "http-server-port")) || (key0 === "revocation-max-age")) || (key0 === "ticket"))){
const err0 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
}
if(data.relay !== undefined){
let data0 = data.relay;
if(typeof data0 === "string"){
if(!pattern0.test(data0)){
const err1 = {instancePath:instancePath+"/relay",schemaPath:"#/definitions/name/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9-]{0,62}$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9-]{0,62}$"+"\"",schema:"^[a-z0-9][a-z0-9-]{0,62}$",parentSchema:schema12,data:data0};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
else {
const err2 = {instancePath:instancePath+"/relay",schemaPath:"#/definitions/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.type,parentSchema:schema12,data:data0};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
}
if(data["tcp-outlet"] !== undefined){
if(!(validate11(data["tcp-outlet"], {instancePath:instancePath+"/tcp-outlet",parentData:data,parentDataProperty:"tcp-outlet",rootData}))){
vErrors = vErrors === null ? validate11.errors : vErrors.concat(validate11.errors);
errors = vErrors.length;
}
}
if(data["tcp-outlets"] !== undefined){
let data2 = data["tcp-outlets"];
if(data2 && typeof data2 == "object" && !Array.isArray(data2)){
if(Object.keys(data2).length < 1){
const err3 = {instancePath:instancePath+"/tcp-outlets",schemaPath:"#/properties/tcp-outlets/minProperties",keyword:"minProperties",params:{limit: 1},message:"must NOT have fewer than 1 properties",schema:1,parentSchema:schema11.properties["tcp-outlets"],data:data2};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
for(const key1 in data2){
const _errs9 = errors;
if(typeof key1 === "string"){
if(!pattern0.test(key1)){
const err4 = {instancePath:instancePath+"/tcp-outlets",schemaPath:"#/definitions/name/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9-]{0,62}$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9-]{0,62}$"+"\"",schema:"^[a-z0-9][a-z0-9-]{0,62}$",parentSchema:schema12,data:key1,propertyName:key1};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
else {
const err5 = {instancePath:instancePath+"/tcp-outlets",schemaPath:"#/definitions/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.type,parentSchema:schema12,data:key1,propertyName:key1};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
var valid2 = _errs9 === errors;
if(!valid2){
const err6 = {instancePath:instancePath+"/tcp-outlets",schemaPath:"#/properties/tcp-outlets/propertyNames",keyword:"propertyNames",params:{propertyName: key1},message:"property name must be valid",schema:schema11.properties["tcp-outlets"].propertyNames,parentSchema:schema11.properties["tcp-outlets"],data:data2};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
for(const key2 in data2){
if(!(validate13(data2[key2], {instancePath:instancePath+"/tcp-outlets/" + key2.replace(/~/g, "~0").replace(/\//g, "~1"),parentData:data2,parentDataProperty:key2,rootData}))){
vErrors = vErrors === null ? validate13.errors : vErrors.concat(validate13.errors);
errors = vErrors.length;
}
}
}
else {
const err7 = {instancePath:instancePath+"/tcp-outlets",schemaPath:"#/properties/tcp-outlets/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties["tcp-outlets"].type,parentSchema:schema11.properties["tcp-outlets"],data:data2};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
if(data["tcp-inlet"] !== undefined){
if(!(validate15(data["tcp-inlet"], {instancePath:instancePath+"/tcp-inlet",parentData:data,parentDataProperty:"tcp-inlet",rootData}))){
vErrors = vErrors === null ? validate15.errors : vErrors.concat(validate15.errors);
errors = vErrors.length;
}
}
if(data["tcp-inlets"] !== undefined){
let data5 = data["tcp-inlets"];
if(data5 && typeof data5 == "object" && !Array.isArray(data5)){
if(Object.keys(data5).length < 1){
const err8 = {instancePath:instancePath+"/tcp-inlets",schemaPath:"#/properties/tcp-inlets/minProperties",keyword:"minProperties",params:{limit: 1},message:"must NOT have fewer than 1 properties",schema:1,parentSchema:schema11.properties["tcp-inlets"],data:data5};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
for(const key3 in data5){
const _errs18 = errors;
if(typeof key3 === "string"){
if(!pattern0.test(key3)){
const err9 = {instancePath:instancePath+"/tcp-inlets",schemaPath:"#/definitions/name/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9-]{0,62}$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9-]{0,62}$"+"\"",schema:"^[a-z0-9][a-z0-9-]{0,62}$",parentSchema:schema12,data:key3,propertyName:key3};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
else {
const err10 = {instancePath:instancePath+"/tcp-inlets",schemaPath:"#/definitions/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.type,parentSchema:schema12,data:key3,propertyName:key3};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
var valid5 = _errs18 === errors;
if(!valid5){
const err11 = {instancePath:instancePath+"/tcp-inlets",schemaPath:"#/properties/tcp-inlets/propertyNames",keyword:"propertyNames",params:{propertyName: key3},message:"property name must be valid",schema:schema11.properties["tcp-inlets"].propertyNames,parentSchema:schema11.properties["tcp-inlets"],data:data5};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
}
for(const key4 in data5){
if(!(validate17(data5[key4], {instancePath:instancePath+"/tcp-inlets/" + key4.replace(/~/g, "~0").replace(/\//g, "~1"),parentData:data5,parentDataProperty:key4,rootData}))){
vErrors = vErrors === null ? validate17.errors : vErrors.concat(validate17.errors);
errors = vErrors.length;
}
}
}
else {
const err12 = {instancePath:instancePath+"/tcp-inlets",schemaPath:"#/properties/tcp-inlets/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties["tcp-inlets"].type,parentSchema:schema11.properties["tcp-inlets"],data:data5};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
}
if(data["http-server-port"] !== undefined){
let data7 = data["http-server-port"];
if(!(((typeof data7 == "number") && (!(data7 % 1) && !isNaN(data7))) && (isFinite(data7)))){
const err13 = {instancePath:instancePath+"/http-server-port",schemaPath:"#/properties/http-server-port/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema11.properties["http-server-port"].type,parentSchema:schema11.properties["http-server-port"],data:data7};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
if((typeof data7 == "number") && (isFinite(data7))){
if(data7 > 65535 || isNaN(data7)){
const err14 = {instancePath:instancePath+"/http-server-port",schemaPath:"#/properties/http-server-port/maximum",keyword:"maximum",params:{comparison: "<=", limit: 65535},message:"must be <= 65535",schema:65535,parentSchema:schema11.properties["http-server-port"],data:data7};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
if(data7 < 0 || isNaN(data7)){
const err15 = {instancePath:instancePath+"/http-server-port",schemaPath:"#/properties/http-server-port/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties["http-server-port"],data:data7};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
}
}
if(data["revocation-max-age"] !== undefined){
let data8 = data["revocation-max-age"];
if(typeof data8 === "string"){
if(func2(data8) > 40){
const err16 = {instancePath:instancePath+"/revocation-max-age",schemaPath:"#/properties/revocation-max-age/maxLength",keyword:"maxLength",params:{limit: 40},message:"must NOT have more than 40 characters",schema:40,parentSchema:schema11.properties["revocation-max-age"],data:data8};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
if(func2(data8) < 1){
const err17 = {instancePath:instancePath+"/revocation-max-age",schemaPath:"#/properties/revocation-max-age/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema11.properties["revocation-max-age"],data:data8};
if(vErrors === null){
vErrors = [err17];
}
else {
vErrors.push(err17);
}
errors++;
}
}
else {
const err18 = {instancePath:instancePath+"/revocation-max-age",schemaPath:"#/properties/revocation-max-age/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties["revocation-max-age"].type,parentSchema:schema11.properties["revocation-max-age"],data:data8};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
}
if(data.ticket !== undefined){
let data9 = data.ticket;
if(typeof data9 !== "string"){
const err19 = {instancePath:instancePath+"/ticket",schemaPath:"#/properties/ticket/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.ticket.type,parentSchema:schema11.properties.ticket,data:data9};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
}
}
else {
const err20 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.type,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err20];
}
else {
vErrors.push(err20);
}
errors++;
}
validate10.errors = vErrors;
return errors === 0;
}

