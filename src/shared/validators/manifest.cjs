/* Generated from the JSON Schema by scripts/generate-types.ts (npm run types). Do not edit. */
"use strict";
module.exports = validate10;
module.exports.default = validate10;
const schema11 = {"$schema":"http://json-schema.org/draft-07/schema#","$id":"https://portal.example.net/schemas/manifest.schema.json","title":"UseCaseManifest","description":"A Portal use case: an outlet node beside one or more private TCP services, an inlet node that exposes them as local ports, and how both are deployed. One portal is written with outlet, inlet and verification; several with portals, which then compile onto the same pair of nodes.","type":"object","additionalProperties":false,"required":["usecase","title"],"properties":{"usecase":{"description":"Short name: the output folder, the stack names <usecase>-outlet / <usecase>-inlet, the container names, and the root of every name not given: ticket attributes <usecase>-outlet / <usecase>-inlet, and the relay of a single portal.","type":"string","pattern":"^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$","x-expected":"a lower-case name of letters, digits and dashes, such as postgres (at most 32, not ending in a dash)"},"title":{"description":"Human title of the use case, used in guides, script comments and stack descriptions (quoted for each).","type":"string","pattern":"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029$`'\"\\\\{}<>]{1,80}$","x-expected":"one line of plain text of up to 80 characters, without control characters, $, quotes, backslashes, braces or angle brackets"},"status-port":{"description":"Port of each node's local HTTP status server (http-server-port). @default 23345","$ref":"#/definitions/port"},"tickets":{"description":"The two enrollment tickets the administrator issues; every flag has a default.","type":"object","additionalProperties":false,"properties":{"outlet":{"$ref":"#/definitions/ticket"},"inlet":{"$ref":"#/definitions/ticket"}}},"outlet":{"$ref":"#/definitions/outlet"},"inlet":{"$ref":"#/definitions/inlet"},"portals":{"description":"Several portals on one pair of nodes, instead of the portal that outlet, inlet and verification describe; outlet and inlet then only choose the nodes' instance types.","type":"array","minItems":1,"maxItems":32,"items":{"$ref":"#/definitions/portal"}},"container":{"$ref":"#/definitions/container"},"verification":{"$ref":"#/definitions/verification"},"control-plane":{"$ref":"#/definitions/controlPlane"}},"definitions":{"controlPlane":{"title":"ControlPlaneManifest","description":"A self-hosted control plane to run the project on (docs/replicas.md): controller replicas on one PostgreSQL database and relay nodes, compiled under control-plane/ as a compose file for one machine, Kubernetes manifests and a CloudFormation stack. Without it, the nodes enroll with any controller (tickets.sh asks for its address).","type":"object","additionalProperties":false,"required":["address"],"properties":{"address":{"description":"The DNS name (or IP address) nodes, relays and administrators dial: the compose machine, or the name pointed at the Kubernetes load balancers (relay n is relay-<n>.<address> there). The stack uses its load balancer's own name.","type":"string","pattern":"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$","x-expected":"a lower-case DNS name such as portal.example.net, or an IPv4 address"},"replicas":{"description":"Controller replicas, each serving every project with no leader. @default 3","type":"integer","minimum":2,"maximum":9},"relays":{"description":"Relay nodes carrying the portals that do not go direct; replicas serve no relay of their own. @default 2","type":"integer","minimum":1,"maximum":9},"port":{"description":"TCP port of the controllers (on the compose machine, replica n listens on port + n - 1). @default 4000","$ref":"#/definitions/port"},"relay-port":{"description":"TCP port of the relays (on the compose machine, relay n listens on relay-port + n - 1). @default 4100","$ref":"#/definitions/port"}}},"port":{"type":"integer","minimum":1,"maximum":65535},"name":{"type":"string","pattern":"^[a-z0-9][a-z0-9-]{0,62}$","x-expected":"a name of lower-case letters, digits and dashes, such as postgres-outlet"},"portalName":{"description":"Name of the portal: its key in the node configurations, its relay unless one is given, and part of its stack names.","type":"string","pattern":"^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$","x-expected":"a lower-case name of letters, digits and dashes, such as orders-db (at most 32, not ending in a dash)"},"dnsLabel":{"description":"Left-most label of the TLS inlet's name <label>.<project_id>.<network_domain>, which clients connect to. @default the portal's name","type":"string","pattern":"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$","x-expected":"a DNS label such as bedrock"},"target":{"description":"Target address host:port; the host may be an endpoint placeholder written $NAME, whose value the deployment gives (a stack parameter, a private endpoint, or the environment variable NAME).","type":"string","minLength":1,"maxLength":259,"pattern":"^[$A-Za-z0-9.:_\\[\\]-]+$","x-expected":"host:port, such as localhost:7777, or an endpoint placeholder as $NAME:port or $NAME"},"allow":{"description":"Who this side admits: an attribute name the peer's ticket carries, or an expression over the peer's attributes with and, or, not, parentheses, KEY = \"v\" and KEY in [\"a\", \"b\"] (docs/policies.md); it must admit the other ticket's attributes.","type":"string","minLength":1,"maxLength":1024,"x-expected":"an attribute name such as postgres-inlet, or an expression such as team = \"ops\" and env = \"prod\""},"ticket":{"title":"TicketManifest","description":"Flags of one `portal project ticket` call.","type":"object","additionalProperties":false,"properties":{"expires-in":{"description":"Lifetime of the ticket (--expires-in). @default \"10h\"","type":"string","pattern":"^([0-9]+(ms|s|m|h|d))+$","maxLength":12,"x-expected":"a duration: a whole number followed by ms, s, m, h or d (such as 10h or 1h30m)"},"usage-count":{"description":"Number of enrollments the ticket allows (--usage-count). @default 1","type":"integer","minimum":1,"maximum":1000},"attribute":{"description":"Attribute given to the enrolled identity (--attribute); peers match it through allow. @default \"<usecase>-outlet\" or \"<usecase>-inlet\"","$ref":"#/definitions/name"},"attributes":{"description":"More attributes for the enrolled identity, after attribute (one --attribute each): a name, or KEY=VALUE such as team=ops, each key once.","type":"array","maxItems":15,"items":{"type":"string","pattern":"^[a-z0-9][a-z0-9-]{0,62}(=[A-Za-z0-9][A-Za-z0-9._-]{0,62})?$","x-expected":"a name such as postgres-inlet, or KEY=VALUE such as team=ops"}},"relay":{"description":"Relay the enrolled node may register (--relay). Outlet tickets of a single portal only: it must be the outlet's relay. A manifest with portals grants every portal's relay.","$ref":"#/definitions/name"},"tls":{"description":"Let the enrolled inlet obtain a TLS server certificate (--tls). @default true for the inlet ticket when an inlet serves TLS","type":"boolean"}}},"instanceType":{"title":"InstanceTypeManifest","description":"EC2 instance type of a node's stack. @default m6a.large: 2 vCPUs and up to 12.5 Gbps of network, with no CPU credits to run out (as t3 types have), the spec's default for the warehouse and model-runtime stacks","type":"object","additionalProperties":false,"required":["default"],"properties":{"default":{"description":"Default EC2 instance type of the stack.","$ref":"#/definitions/ec2InstanceType"},"alternatives":{"description":"Suggested alternatives, named in the parameter description and the guide.","type":"array","items":{"$ref":"#/definitions/ec2InstanceType"},"uniqueItems":true},"note":{"description":"Why the default was chosen, for the guide and the parameter description.","type":"string","pattern":"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$","maxLength":200,"x-expected":"one line of text without control characters"}}},"ec2InstanceType":{"type":"string","pattern":"^[a-z][a-z0-9-]*\\.[a-z0-9]+$","maxLength":64,"x-expected":"an EC2 instance type such as m6a.large"},"endpoint":{"title":"EndpointManifest","description":"The value of the target's placeholder, known only when the outlet is deployed. Every key has a default: a stack parameter named after the placeholder.","type":"object","additionalProperties":false,"properties":{"placeholder":{"description":"The placeholder in the target, without its $. @default the one the target uses","type":"string","pattern":"^[A-Z][A-Z_]{0,62}$","x-expected":"an upper-case name of letters and underscores, such as REDIS_ENDPOINT"},"source":{"description":"parameter: the administrator gives the value as a stack parameter (or the environment variable of the same name); vpc-endpoint: the outlet stack creates an interface endpoint (AWS PrivateLink) for the service and uses its private DNS name. @default parameter","type":"string","enum":["parameter","vpc-endpoint"]},"parameter":{"description":"Logical name of the stack parameter (source parameter). @default the placeholder in CamelCase: REDIS_ENDPOINT gives RedisEndpoint","type":"string","pattern":"^[A-Za-z][A-Za-z0-9]{0,254}$","x-expected":"a CloudFormation parameter name of letters and digits, such as RedisEndpoint"},"service":{"description":"The PrivateLink service (source vpc-endpoint): an AWS service short name such as bedrock-runtime (in the stack's region), com.amazonaws.<region>.<service>, or an endpoint service com.amazonaws.vpce.<region>.vpce-svc-<17 hex digits>.","type":"string","maxLength":100,"pattern":"^(?!com\\.amazonaws\\.)[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$|^com\\.amazonaws\\.[a-z]{2}(-[a-z]+)+-[0-9]{1,2}\\.[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$|^com\\.amazonaws\\.vpce\\.[a-z]{2}(-[a-z]+)+-[0-9]{1,2}\\.vpce-svc-[0-9a-f]{17}$","x-expected":"an AWS service short name such as bedrock-runtime, com.amazonaws.<region>.<service>, or com.amazonaws.vpce.<region>.vpce-svc-<17 hex digits>"},"port":{"description":"Port the endpoint value carries, when the target is the bare placeholder.","$ref":"#/definitions/port"},"label":{"description":"What the endpoint is, for parameter descriptions and guides. @default \"<title> endpoint\", or \"<portal> endpoint\" with portals","type":"string","minLength":1,"maxLength":100,"pattern":"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$","x-expected":"one line of text without control characters"},"example":{"description":"An example value used in the guide and the parameter description.","type":"string","minLength":1,"maxLength":259,"pattern":"^[A-Za-z0-9.:/_-]+$","x-expected":"a host name, or host:port, such as db.example.net:5432"}}},"outlet":{"title":"OutletManifest","description":"The outlet node. For a single portal also its outlet (to is required then); with portals only instance-type.","type":"object","additionalProperties":false,"properties":{"relay":{"description":"Relay the outlet registers; equals the outlet ticket's --relay and the inlet's via. @default the use case's name","$ref":"#/definitions/name"},"to":{"$ref":"#/definitions/target"},"allow":{"description":"Who the outlet admits: an attribute the inlet ticket carries, or an expression its attributes meet. @default that attribute","$ref":"#/definitions/allow"},"tls":{"description":"The outlet connects to its target over TLS and checks its certificate. @default false","type":"boolean"},"endpoint":{"$ref":"#/definitions/endpoint"},"instance-type":{"$ref":"#/definitions/instanceType"},"replicas":{"description":"Outlet nodes that serve the portals together, as one pool (docs/replicas.md): inlets spread connections over them and a lost or drained one costs no new connection. Each is a node of its own, enrolled with the same outlet ticket, whose usage count defaults to this number. Allowed with portals too. @default 1","type":"integer","minimum":1,"maximum":16}}},"inlet":{"title":"InletManifest","description":"The inlet node. For a single portal also its inlet (port is required then); with portals only instance-type.","type":"object","additionalProperties":false,"properties":{"port":{"description":"Local port the inlet listens on.","$ref":"#/definitions/port"},"via":{"description":"Relay through which the inlet reaches the outlet. @default the outlet's relay","$ref":"#/definitions/name"},"allow":{"description":"Who the inlet admits: an attribute the outlet ticket carries, or an expression its attributes meet. @default that attribute","$ref":"#/definitions/allow"},"tls":{"description":"The inlet serves TLS to its clients, with a certificate the project signs for <label>.<project_id>.<network_domain>. @default false","type":"boolean"},"instance-type":{"$ref":"#/definitions/instanceType"}}},"portal":{"title":"PortalManifest","description":"One portal of several: a target beside the outlet node, a port on the inlet node.","type":"object","additionalProperties":false,"required":["name","outlet","inlet"],"properties":{"name":{"$ref":"#/definitions/portalName"},"outlet":{"title":"PortalOutletManifest","type":"object","additionalProperties":false,"required":["to"],"properties":{"relay":{"description":"Relay this outlet registers; the outlet ticket grants it. @default the portal's name","$ref":"#/definitions/name"},"to":{"$ref":"#/definitions/target"},"allow":{"description":"Who the outlet admits: an attribute the inlet ticket carries, or an expression its attributes meet. @default that attribute","$ref":"#/definitions/allow"},"tls":{"description":"The outlet connects to this target over TLS and checks its certificate. @default false","type":"boolean"},"endpoint":{"$ref":"#/definitions/endpoint"}}},"inlet":{"title":"PortalInletManifest","type":"object","additionalProperties":false,"required":["port"],"properties":{"port":{"description":"Local port this inlet listens on.","$ref":"#/definitions/port"},"via":{"description":"Relay through which this inlet reaches its outlet. @default the outlet's relay","$ref":"#/definitions/name"},"allow":{"description":"Who the inlet admits: an attribute the outlet ticket carries, or an expression its attributes meet. @default that attribute","$ref":"#/definitions/allow"},"tls":{"description":"This inlet serves TLS to its clients. @default false","type":"boolean"}}},"verification":{"$ref":"#/definitions/verification"}}},"container":{"title":"ContainerManifest","description":"The inlet as a container (inlet.compose.yaml); every key has a default.","type":"object","additionalProperties":false,"properties":{"image":{"description":"Node container image. @default portal-node","type":"string","pattern":"^[a-z0-9][a-z0-9._/:@-]*$","maxLength":255,"x-expected":"a container image reference such as portal-node or registry.example.net/portal-node:1.0"},"listen":{"description":"Listen address of the inlet inside the container. @default 127.0.0.1 on the host network, 0.0.0.0 on a bridge","type":"string","enum":["127.0.0.1","0.0.0.0"]},"network-mode":{"description":"@default host","type":"string","enum":["host","bridge"]},"publish":{"description":"Published ports host:container (bridge mode). @default every inlet port, as port:port","type":"array","items":{"type":"string","pattern":"^[0-9]{1,5}:[0-9]{1,5}$","x-expected":"a port mapping such as 443:443"},"uniqueItems":true},"log-level":{"description":"NODE_LOG_LEVEL of the node. @default info","type":"string","enum":["error","warn","info","debug","trace"]},"ticket-passing":{"description":"How the node service gives its configuration: flags: --configuration; node-config: --node-config. Either way the ticket travels in the ENROLLMENT_TICKET environment variable, never on the command line. @default flags","type":"string","enum":["flags","node-config"]},"developer-variable":{"description":"Whether the node service declares NODE_DEVELOPER (default false). @default false","type":"boolean"},"psql-client":{"title":"PsqlClientManifest","description":"A PostgreSQL client container next to the node.","type":"object","additionalProperties":false,"required":["image"],"properties":{"image":{"$ref":"#/definitions/image"}}},"client":{"title":"ClientManifest","description":"A client container next to the node, named <usecase>-client, in which the guide runs the command verifications.","type":"object","additionalProperties":false,"required":["image"],"properties":{"image":{"$ref":"#/definitions/image"}}}}},"image":{"type":"string","pattern":"^[a-z0-9][a-z0-9._/:@-]*$","maxLength":255,"x-expected":"a container image reference such as postgres:15"},"urlPath":{"type":"string","pattern":"^/([A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*$","maxLength":200,"x-expected":"a URL path: / followed by letters, digits, -._~!$&'()*+,;=:@/ and %XX escapes, such as /index.html"},"verification":{"title":"VerificationManifest","description":"How the administrator checks the portal through the inlet. @default {kind: tcp}","type":"object","discriminator":{"propertyName":"kind"},"oneOf":[{"title":"TcpVerification","description":"Connect through the inlet; optionally send bytes and expect the reply to begin with a prefix.","type":"object","additionalProperties":false,"required":["kind"],"properties":{"kind":{"const":"tcp"},"send":{"description":"Bytes to send once connected (the text as UTF-8), such as \"PING\\r\\n\".","type":"string","minLength":1,"maxLength":1024,"pattern":"^[^\\u0000]*$","x-expected":"text without NUL characters"},"expect":{"description":"What the reply must begin with.","type":"string","pattern":"^[\\u0020-\\u007e]{1,200}$","x-expected":"up to 200 printable ASCII characters, such as +PONG"},"label":{"$ref":"#/definitions/dnsLabel"}}},{"title":"HttpVerification","description":"An HTTP request through the inlet (HTTPS with the project's CA when the inlet serves TLS).","type":"object","additionalProperties":false,"required":["kind"],"properties":{"kind":{"const":"http"},"method":{"description":"@default GET","type":"string","enum":["GET","HEAD","POST","PUT","PATCH","DELETE","OPTIONS"]},"path":{"description":"Path of the request. @default /","$ref":"#/definitions/urlPath"},"status":{"description":"The HTTP status expected. @default 200","type":"integer","minimum":100,"maximum":599},"label":{"$ref":"#/definitions/dnsLabel"}}},{"title":"CommandVerification","description":"A client program run against the inlet. Its words are given as a list; {host}, {port}, {name} (the TLS inlet's name) and {ca} (the project CA file) are filled in as separate, quoted words; {env:NAME} is the environment variable NAME where the check runs, for a password, which is never written into the generated files (a word that holds one is refused).","type":"object","additionalProperties":false,"required":["kind","run"],"properties":{"kind":{"const":"command"},"run":{"description":"The program and its arguments, such as [redis-cli, -h, \"{host}\", -p, \"{port}\", PING].","type":"array","minItems":1,"maxItems":64,"items":{"type":"string","minLength":1,"maxLength":1024,"pattern":"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$","x-expected":"one line of text without control characters"}},"expect":{"description":"Text the command's output must contain.","type":"string","pattern":"^[\\u0020-\\u007e]{1,200}$","x-expected":"up to 200 printable ASCII characters, such as PONG"},"label":{"$ref":"#/definitions/dnsLabel"}}},{"title":"WebhookVerification","type":"object","additionalProperties":false,"required":["kind","path"],"properties":{"kind":{"const":"webhook"},"path":{"description":"Path the receiver accepts POSTs on.","$ref":"#/definitions/urlPath"}}},{"title":"PsqlVerification","type":"object","additionalProperties":false,"required":["kind","table"],"properties":{"kind":{"const":"psql"},"table":{"description":"Name of the scratch table the verification creates and drops.","type":"string","pattern":"^[a-z_][a-z0-9_]{0,62}$","x-expected":"a lower-case SQL table name such as portal_check"}}},{"title":"InvokeModelVerification","type":"object","additionalProperties":false,"required":["kind","model-id","region"],"properties":{"kind":{"const":"invoke-model"},"model-id":{"description":"Model the guide invokes.","type":"string","pattern":"^[A-Za-z0-9.:_-]+$","maxLength":200,"x-expected":"a model id such as amazon.titan-text-express-v1"},"label":{"$ref":"#/definitions/dnsLabel"},"region":{"description":"Example region for the guide's AWS_REGION.","type":"string","pattern":"^[a-z]{2}(-[a-z]+)+-[0-9]$","x-expected":"an AWS region such as us-east-1"}}}]}}};
const schema12 = {"type":"integer","minimum":1,"maximum":65535};
const func2 = Object.prototype.hasOwnProperty;
const pattern0 = new RegExp("^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$", "u");
const pattern1 = new RegExp("^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029$`'\"\\\\{}<>]{1,80}$", "u");
const schema13 = {"title":"TicketManifest","description":"Flags of one `portal project ticket` call.","type":"object","additionalProperties":false,"properties":{"expires-in":{"description":"Lifetime of the ticket (--expires-in). @default \"10h\"","type":"string","pattern":"^([0-9]+(ms|s|m|h|d))+$","maxLength":12,"x-expected":"a duration: a whole number followed by ms, s, m, h or d (such as 10h or 1h30m)"},"usage-count":{"description":"Number of enrollments the ticket allows (--usage-count). @default 1","type":"integer","minimum":1,"maximum":1000},"attribute":{"description":"Attribute given to the enrolled identity (--attribute); peers match it through allow. @default \"<usecase>-outlet\" or \"<usecase>-inlet\"","$ref":"#/definitions/name"},"attributes":{"description":"More attributes for the enrolled identity, after attribute (one --attribute each): a name, or KEY=VALUE such as team=ops, each key once.","type":"array","maxItems":15,"items":{"type":"string","pattern":"^[a-z0-9][a-z0-9-]{0,62}(=[A-Za-z0-9][A-Za-z0-9._-]{0,62})?$","x-expected":"a name such as postgres-inlet, or KEY=VALUE such as team=ops"}},"relay":{"description":"Relay the enrolled node may register (--relay). Outlet tickets of a single portal only: it must be the outlet's relay. A manifest with portals grants every portal's relay.","$ref":"#/definitions/name"},"tls":{"description":"Let the enrolled inlet obtain a TLS server certificate (--tls). @default true for the inlet ticket when an inlet serves TLS","type":"boolean"}}};
const schema14 = {"type":"string","pattern":"^[a-z0-9][a-z0-9-]{0,62}$","x-expected":"a name of lower-case letters, digits and dashes, such as postgres-outlet"};
const func3 = require("ajv/dist/runtime/ucs2length").default;
const pattern2 = new RegExp("^([0-9]+(ms|s|m|h|d))+$", "u");
const pattern3 = new RegExp("^[a-z0-9][a-z0-9-]{0,62}$", "u");
const pattern4 = new RegExp("^[a-z0-9][a-z0-9-]{0,62}(=[A-Za-z0-9][A-Za-z0-9._-]{0,62})?$", "u");

function validate11(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
for(const key0 in data){
if(!((((((key0 === "expires-in") || (key0 === "usage-count")) || (key0 === "attribute")) || (key0 === "attributes")) || (key0 === "relay")) || (key0 === "tls"))){
const err0 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema13,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
}
if(data["expires-in"] !== undefined){
let data0 = data["expires-in"];
if(typeof data0 === "string"){
if(func3(data0) > 12){
const err1 = {instancePath:instancePath+"/expires-in",schemaPath:"#/properties/expires-in/maxLength",keyword:"maxLength",params:{limit: 12},message:"must NOT have more than 12 characters",schema:12,parentSchema:schema13.properties["expires-in"],data:data0};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
if(!pattern2.test(data0)){
const err2 = {instancePath:instancePath+"/expires-in",schemaPath:"#/properties/expires-in/pattern",keyword:"pattern",params:{pattern: "^([0-9]+(ms|s|m|h|d))+$"},message:"must match pattern \""+"^([0-9]+(ms|s|m|h|d))+$"+"\"",schema:"^([0-9]+(ms|s|m|h|d))+$",parentSchema:schema13.properties["expires-in"],data:data0};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
}
else {
const err3 = {instancePath:instancePath+"/expires-in",schemaPath:"#/properties/expires-in/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema13.properties["expires-in"].type,parentSchema:schema13.properties["expires-in"],data:data0};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
if(data["usage-count"] !== undefined){
let data1 = data["usage-count"];
if(!(((typeof data1 == "number") && (!(data1 % 1) && !isNaN(data1))) && (isFinite(data1)))){
const err4 = {instancePath:instancePath+"/usage-count",schemaPath:"#/properties/usage-count/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema13.properties["usage-count"].type,parentSchema:schema13.properties["usage-count"],data:data1};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
if((typeof data1 == "number") && (isFinite(data1))){
if(data1 > 1000 || isNaN(data1)){
const err5 = {instancePath:instancePath+"/usage-count",schemaPath:"#/properties/usage-count/maximum",keyword:"maximum",params:{comparison: "<=", limit: 1000},message:"must be <= 1000",schema:1000,parentSchema:schema13.properties["usage-count"],data:data1};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
if(data1 < 1 || isNaN(data1)){
const err6 = {instancePath:instancePath+"/usage-count",schemaPath:"#/properties/usage-count/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema13.properties["usage-count"],data:data1};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
}
if(data.attribute !== undefined){
let data2 = data.attribute;
if(typeof data2 === "string"){
if(!pattern3.test(data2)){
const err7 = {instancePath:instancePath+"/attribute",schemaPath:"#/definitions/name/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9-]{0,62}$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9-]{0,62}$"+"\"",schema:"^[a-z0-9][a-z0-9-]{0,62}$",parentSchema:schema14,data:data2};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
else {
const err8 = {instancePath:instancePath+"/attribute",schemaPath:"#/definitions/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.type,parentSchema:schema14,data:data2};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
}
if(data.attributes !== undefined){
let data3 = data.attributes;
if(Array.isArray(data3)){
if(data3.length > 15){
const err9 = {instancePath:instancePath+"/attributes",schemaPath:"#/properties/attributes/maxItems",keyword:"maxItems",params:{limit: 15},message:"must NOT have more than 15 items",schema:15,parentSchema:schema13.properties.attributes,data:data3};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
const len0 = data3.length;
for(let i0=0; i0<len0; i0++){
let data4 = data3[i0];
if(typeof data4 === "string"){
if(!pattern4.test(data4)){
const err10 = {instancePath:instancePath+"/attributes/" + i0,schemaPath:"#/properties/attributes/items/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9-]{0,62}(=[A-Za-z0-9][A-Za-z0-9._-]{0,62})?$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9-]{0,62}(=[A-Za-z0-9][A-Za-z0-9._-]{0,62})?$"+"\"",schema:"^[a-z0-9][a-z0-9-]{0,62}(=[A-Za-z0-9][A-Za-z0-9._-]{0,62})?$",parentSchema:schema13.properties.attributes.items,data:data4};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
}
else {
const err11 = {instancePath:instancePath+"/attributes/" + i0,schemaPath:"#/properties/attributes/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema13.properties.attributes.items.type,parentSchema:schema13.properties.attributes.items,data:data4};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
}
}
else {
const err12 = {instancePath:instancePath+"/attributes",schemaPath:"#/properties/attributes/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema13.properties.attributes.type,parentSchema:schema13.properties.attributes,data:data3};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
}
if(data.relay !== undefined){
let data5 = data.relay;
if(typeof data5 === "string"){
if(!pattern3.test(data5)){
const err13 = {instancePath:instancePath+"/relay",schemaPath:"#/definitions/name/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9-]{0,62}$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9-]{0,62}$"+"\"",schema:"^[a-z0-9][a-z0-9-]{0,62}$",parentSchema:schema14,data:data5};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
}
else {
const err14 = {instancePath:instancePath+"/relay",schemaPath:"#/definitions/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.type,parentSchema:schema14,data:data5};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
}
if(data.tls !== undefined){
let data6 = data.tls;
if(typeof data6 !== "boolean"){
const err15 = {instancePath:instancePath+"/tls",schemaPath:"#/properties/tls/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema13.properties.tls.type,parentSchema:schema13.properties.tls,data:data6};
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
else {
const err16 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema13.type,parentSchema:schema13,data};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
validate11.errors = vErrors;
return errors === 0;
}

const schema16 = {"title":"OutletManifest","description":"The outlet node. For a single portal also its outlet (to is required then); with portals only instance-type.","type":"object","additionalProperties":false,"properties":{"relay":{"description":"Relay the outlet registers; equals the outlet ticket's --relay and the inlet's via. @default the use case's name","$ref":"#/definitions/name"},"to":{"$ref":"#/definitions/target"},"allow":{"description":"Who the outlet admits: an attribute the inlet ticket carries, or an expression its attributes meet. @default that attribute","$ref":"#/definitions/allow"},"tls":{"description":"The outlet connects to its target over TLS and checks its certificate. @default false","type":"boolean"},"endpoint":{"$ref":"#/definitions/endpoint"},"instance-type":{"$ref":"#/definitions/instanceType"},"replicas":{"description":"Outlet nodes that serve the portals together, as one pool (docs/replicas.md): inlets spread connections over them and a lost or drained one costs no new connection. Each is a node of its own, enrolled with the same outlet ticket, whose usage count defaults to this number. Allowed with portals too. @default 1","type":"integer","minimum":1,"maximum":16}}};
const schema18 = {"description":"Target address host:port; the host may be an endpoint placeholder written $NAME, whose value the deployment gives (a stack parameter, a private endpoint, or the environment variable NAME).","type":"string","minLength":1,"maxLength":259,"pattern":"^[$A-Za-z0-9.:_\\[\\]-]+$","x-expected":"host:port, such as localhost:7777, or an endpoint placeholder as $NAME:port or $NAME"};
const schema19 = {"description":"Who this side admits: an attribute name the peer's ticket carries, or an expression over the peer's attributes with and, or, not, parentheses, KEY = \"v\" and KEY in [\"a\", \"b\"] (docs/policies.md); it must admit the other ticket's attributes.","type":"string","minLength":1,"maxLength":1024,"x-expected":"an attribute name such as postgres-inlet, or an expression such as team = \"ops\" and env = \"prod\""};
const pattern7 = new RegExp("^[$A-Za-z0-9.:_\\[\\]-]+$", "u");
const schema20 = {"title":"EndpointManifest","description":"The value of the target's placeholder, known only when the outlet is deployed. Every key has a default: a stack parameter named after the placeholder.","type":"object","additionalProperties":false,"properties":{"placeholder":{"description":"The placeholder in the target, without its $. @default the one the target uses","type":"string","pattern":"^[A-Z][A-Z_]{0,62}$","x-expected":"an upper-case name of letters and underscores, such as REDIS_ENDPOINT"},"source":{"description":"parameter: the administrator gives the value as a stack parameter (or the environment variable of the same name); vpc-endpoint: the outlet stack creates an interface endpoint (AWS PrivateLink) for the service and uses its private DNS name. @default parameter","type":"string","enum":["parameter","vpc-endpoint"]},"parameter":{"description":"Logical name of the stack parameter (source parameter). @default the placeholder in CamelCase: REDIS_ENDPOINT gives RedisEndpoint","type":"string","pattern":"^[A-Za-z][A-Za-z0-9]{0,254}$","x-expected":"a CloudFormation parameter name of letters and digits, such as RedisEndpoint"},"service":{"description":"The PrivateLink service (source vpc-endpoint): an AWS service short name such as bedrock-runtime (in the stack's region), com.amazonaws.<region>.<service>, or an endpoint service com.amazonaws.vpce.<region>.vpce-svc-<17 hex digits>.","type":"string","maxLength":100,"pattern":"^(?!com\\.amazonaws\\.)[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$|^com\\.amazonaws\\.[a-z]{2}(-[a-z]+)+-[0-9]{1,2}\\.[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$|^com\\.amazonaws\\.vpce\\.[a-z]{2}(-[a-z]+)+-[0-9]{1,2}\\.vpce-svc-[0-9a-f]{17}$","x-expected":"an AWS service short name such as bedrock-runtime, com.amazonaws.<region>.<service>, or com.amazonaws.vpce.<region>.vpce-svc-<17 hex digits>"},"port":{"description":"Port the endpoint value carries, when the target is the bare placeholder.","$ref":"#/definitions/port"},"label":{"description":"What the endpoint is, for parameter descriptions and guides. @default \"<title> endpoint\", or \"<portal> endpoint\" with portals","type":"string","minLength":1,"maxLength":100,"pattern":"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$","x-expected":"one line of text without control characters"},"example":{"description":"An example value used in the guide and the parameter description.","type":"string","minLength":1,"maxLength":259,"pattern":"^[A-Za-z0-9.:/_-]+$","x-expected":"a host name, or host:port, such as db.example.net:5432"}}};
const pattern8 = new RegExp("^[A-Z][A-Z_]{0,62}$", "u");
const pattern9 = new RegExp("^[A-Za-z][A-Za-z0-9]{0,254}$", "u");
const pattern10 = new RegExp("^(?!com\\.amazonaws\\.)[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$|^com\\.amazonaws\\.[a-z]{2}(-[a-z]+)+-[0-9]{1,2}\\.[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$|^com\\.amazonaws\\.vpce\\.[a-z]{2}(-[a-z]+)+-[0-9]{1,2}\\.vpce-svc-[0-9a-f]{17}$", "u");
const pattern11 = new RegExp("^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$", "u");
const pattern12 = new RegExp("^[A-Za-z0-9.:/_-]+$", "u");

function validate15(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
for(const key0 in data){
if(!(((((((key0 === "placeholder") || (key0 === "source")) || (key0 === "parameter")) || (key0 === "service")) || (key0 === "port")) || (key0 === "label")) || (key0 === "example"))){
const err0 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema20,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
}
if(data.placeholder !== undefined){
let data0 = data.placeholder;
if(typeof data0 === "string"){
if(!pattern8.test(data0)){
const err1 = {instancePath:instancePath+"/placeholder",schemaPath:"#/properties/placeholder/pattern",keyword:"pattern",params:{pattern: "^[A-Z][A-Z_]{0,62}$"},message:"must match pattern \""+"^[A-Z][A-Z_]{0,62}$"+"\"",schema:"^[A-Z][A-Z_]{0,62}$",parentSchema:schema20.properties.placeholder,data:data0};
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
const err2 = {instancePath:instancePath+"/placeholder",schemaPath:"#/properties/placeholder/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema20.properties.placeholder.type,parentSchema:schema20.properties.placeholder,data:data0};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
}
if(data.source !== undefined){
let data1 = data.source;
if(typeof data1 !== "string"){
const err3 = {instancePath:instancePath+"/source",schemaPath:"#/properties/source/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema20.properties.source.type,parentSchema:schema20.properties.source,data:data1};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
if(!((data1 === "parameter") || (data1 === "vpc-endpoint"))){
const err4 = {instancePath:instancePath+"/source",schemaPath:"#/properties/source/enum",keyword:"enum",params:{allowedValues: schema20.properties.source.enum},message:"must be equal to one of the allowed values",schema:schema20.properties.source.enum,parentSchema:schema20.properties.source,data:data1};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
if(data.parameter !== undefined){
let data2 = data.parameter;
if(typeof data2 === "string"){
if(!pattern9.test(data2)){
const err5 = {instancePath:instancePath+"/parameter",schemaPath:"#/properties/parameter/pattern",keyword:"pattern",params:{pattern: "^[A-Za-z][A-Za-z0-9]{0,254}$"},message:"must match pattern \""+"^[A-Za-z][A-Za-z0-9]{0,254}$"+"\"",schema:"^[A-Za-z][A-Za-z0-9]{0,254}$",parentSchema:schema20.properties.parameter,data:data2};
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
const err6 = {instancePath:instancePath+"/parameter",schemaPath:"#/properties/parameter/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema20.properties.parameter.type,parentSchema:schema20.properties.parameter,data:data2};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
if(data.service !== undefined){
let data3 = data.service;
if(typeof data3 === "string"){
if(func3(data3) > 100){
const err7 = {instancePath:instancePath+"/service",schemaPath:"#/properties/service/maxLength",keyword:"maxLength",params:{limit: 100},message:"must NOT have more than 100 characters",schema:100,parentSchema:schema20.properties.service,data:data3};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
if(!pattern10.test(data3)){
const err8 = {instancePath:instancePath+"/service",schemaPath:"#/properties/service/pattern",keyword:"pattern",params:{pattern: "^(?!com\\.amazonaws\\.)[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$|^com\\.amazonaws\\.[a-z]{2}(-[a-z]+)+-[0-9]{1,2}\\.[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$|^com\\.amazonaws\\.vpce\\.[a-z]{2}(-[a-z]+)+-[0-9]{1,2}\\.vpce-svc-[0-9a-f]{17}$"},message:"must match pattern \""+"^(?!com\\.amazonaws\\.)[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$|^com\\.amazonaws\\.[a-z]{2}(-[a-z]+)+-[0-9]{1,2}\\.[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$|^com\\.amazonaws\\.vpce\\.[a-z]{2}(-[a-z]+)+-[0-9]{1,2}\\.vpce-svc-[0-9a-f]{17}$"+"\"",schema:"^(?!com\\.amazonaws\\.)[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$|^com\\.amazonaws\\.[a-z]{2}(-[a-z]+)+-[0-9]{1,2}\\.[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$|^com\\.amazonaws\\.vpce\\.[a-z]{2}(-[a-z]+)+-[0-9]{1,2}\\.vpce-svc-[0-9a-f]{17}$",parentSchema:schema20.properties.service,data:data3};
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
const err9 = {instancePath:instancePath+"/service",schemaPath:"#/properties/service/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema20.properties.service.type,parentSchema:schema20.properties.service,data:data3};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
if(data.port !== undefined){
let data4 = data.port;
if(!(((typeof data4 == "number") && (!(data4 % 1) && !isNaN(data4))) && (isFinite(data4)))){
const err10 = {instancePath:instancePath+"/port",schemaPath:"#/definitions/port/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema12.type,parentSchema:schema12,data:data4};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
if((typeof data4 == "number") && (isFinite(data4))){
if(data4 > 65535 || isNaN(data4)){
const err11 = {instancePath:instancePath+"/port",schemaPath:"#/definitions/port/maximum",keyword:"maximum",params:{comparison: "<=", limit: 65535},message:"must be <= 65535",schema:65535,parentSchema:schema12,data:data4};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
if(data4 < 1 || isNaN(data4)){
const err12 = {instancePath:instancePath+"/port",schemaPath:"#/definitions/port/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema12,data:data4};
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
if(data.label !== undefined){
let data5 = data.label;
if(typeof data5 === "string"){
if(func3(data5) > 100){
const err13 = {instancePath:instancePath+"/label",schemaPath:"#/properties/label/maxLength",keyword:"maxLength",params:{limit: 100},message:"must NOT have more than 100 characters",schema:100,parentSchema:schema20.properties.label,data:data5};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
if(func3(data5) < 1){
const err14 = {instancePath:instancePath+"/label",schemaPath:"#/properties/label/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema20.properties.label,data:data5};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
if(!pattern11.test(data5)){
const err15 = {instancePath:instancePath+"/label",schemaPath:"#/properties/label/pattern",keyword:"pattern",params:{pattern: "^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$"},message:"must match pattern \""+"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$"+"\"",schema:"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$",parentSchema:schema20.properties.label,data:data5};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
}
else {
const err16 = {instancePath:instancePath+"/label",schemaPath:"#/properties/label/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema20.properties.label.type,parentSchema:schema20.properties.label,data:data5};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
}
if(data.example !== undefined){
let data6 = data.example;
if(typeof data6 === "string"){
if(func3(data6) > 259){
const err17 = {instancePath:instancePath+"/example",schemaPath:"#/properties/example/maxLength",keyword:"maxLength",params:{limit: 259},message:"must NOT have more than 259 characters",schema:259,parentSchema:schema20.properties.example,data:data6};
if(vErrors === null){
vErrors = [err17];
}
else {
vErrors.push(err17);
}
errors++;
}
if(func3(data6) < 1){
const err18 = {instancePath:instancePath+"/example",schemaPath:"#/properties/example/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema20.properties.example,data:data6};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
if(!pattern12.test(data6)){
const err19 = {instancePath:instancePath+"/example",schemaPath:"#/properties/example/pattern",keyword:"pattern",params:{pattern: "^[A-Za-z0-9.:/_-]+$"},message:"must match pattern \""+"^[A-Za-z0-9.:/_-]+$"+"\"",schema:"^[A-Za-z0-9.:/_-]+$",parentSchema:schema20.properties.example,data:data6};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
}
else {
const err20 = {instancePath:instancePath+"/example",schemaPath:"#/properties/example/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema20.properties.example.type,parentSchema:schema20.properties.example,data:data6};
if(vErrors === null){
vErrors = [err20];
}
else {
vErrors.push(err20);
}
errors++;
}
}
}
else {
const err21 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema20.type,parentSchema:schema20,data};
if(vErrors === null){
vErrors = [err21];
}
else {
vErrors.push(err21);
}
errors++;
}
validate15.errors = vErrors;
return errors === 0;
}

const schema22 = {"title":"InstanceTypeManifest","description":"EC2 instance type of a node's stack. @default m6a.large: 2 vCPUs and up to 12.5 Gbps of network, with no CPU credits to run out (as t3 types have), the spec's default for the warehouse and model-runtime stacks","type":"object","additionalProperties":false,"required":["default"],"properties":{"default":{"description":"Default EC2 instance type of the stack.","$ref":"#/definitions/ec2InstanceType"},"alternatives":{"description":"Suggested alternatives, named in the parameter description and the guide.","type":"array","items":{"$ref":"#/definitions/ec2InstanceType"},"uniqueItems":true},"note":{"description":"Why the default was chosen, for the guide and the parameter description.","type":"string","pattern":"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$","maxLength":200,"x-expected":"one line of text without control characters"}}};
const schema23 = {"type":"string","pattern":"^[a-z][a-z0-9-]*\\.[a-z0-9]+$","maxLength":64,"x-expected":"an EC2 instance type such as m6a.large"};
const func0 = require("ajv/dist/runtime/equal").default;
const pattern13 = new RegExp("^[a-z][a-z0-9-]*\\.[a-z0-9]+$", "u");

function validate17(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.default === undefined){
const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "default"},message:"must have required property '"+"default"+"'",schema:schema22.required,parentSchema:schema22,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
for(const key0 in data){
if(!(((key0 === "default") || (key0 === "alternatives")) || (key0 === "note"))){
const err1 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema22,data};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
if(data.default !== undefined){
let data0 = data.default;
if(typeof data0 === "string"){
if(func3(data0) > 64){
const err2 = {instancePath:instancePath+"/default",schemaPath:"#/definitions/ec2InstanceType/maxLength",keyword:"maxLength",params:{limit: 64},message:"must NOT have more than 64 characters",schema:64,parentSchema:schema23,data:data0};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
if(!pattern13.test(data0)){
const err3 = {instancePath:instancePath+"/default",schemaPath:"#/definitions/ec2InstanceType/pattern",keyword:"pattern",params:{pattern: "^[a-z][a-z0-9-]*\\.[a-z0-9]+$"},message:"must match pattern \""+"^[a-z][a-z0-9-]*\\.[a-z0-9]+$"+"\"",schema:"^[a-z][a-z0-9-]*\\.[a-z0-9]+$",parentSchema:schema23,data:data0};
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
const err4 = {instancePath:instancePath+"/default",schemaPath:"#/definitions/ec2InstanceType/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema23.type,parentSchema:schema23,data:data0};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
if(data.alternatives !== undefined){
let data1 = data.alternatives;
if(Array.isArray(data1)){
const len0 = data1.length;
for(let i0=0; i0<len0; i0++){
let data2 = data1[i0];
if(typeof data2 === "string"){
if(func3(data2) > 64){
const err5 = {instancePath:instancePath+"/alternatives/" + i0,schemaPath:"#/definitions/ec2InstanceType/maxLength",keyword:"maxLength",params:{limit: 64},message:"must NOT have more than 64 characters",schema:64,parentSchema:schema23,data:data2};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
if(!pattern13.test(data2)){
const err6 = {instancePath:instancePath+"/alternatives/" + i0,schemaPath:"#/definitions/ec2InstanceType/pattern",keyword:"pattern",params:{pattern: "^[a-z][a-z0-9-]*\\.[a-z0-9]+$"},message:"must match pattern \""+"^[a-z][a-z0-9-]*\\.[a-z0-9]+$"+"\"",schema:"^[a-z][a-z0-9-]*\\.[a-z0-9]+$",parentSchema:schema23,data:data2};
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
const err7 = {instancePath:instancePath+"/alternatives/" + i0,schemaPath:"#/definitions/ec2InstanceType/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema23.type,parentSchema:schema23,data:data2};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
let i1 = data1.length;
let j0;
if(i1 > 1){
outer0:
for(;i1--;){
for(j0 = i1; j0--;){
if(func0(data1[i1], data1[j0])){
const err8 = {instancePath:instancePath+"/alternatives",schemaPath:"#/properties/alternatives/uniqueItems",keyword:"uniqueItems",params:{i: i1, j: j0},message:"must NOT have duplicate items (items ## "+j0+" and "+i1+" are identical)",schema:true,parentSchema:schema22.properties.alternatives,data:data1};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
break outer0;
}
}
}
}
}
else {
const err9 = {instancePath:instancePath+"/alternatives",schemaPath:"#/properties/alternatives/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema22.properties.alternatives.type,parentSchema:schema22.properties.alternatives,data:data1};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
if(data.note !== undefined){
let data3 = data.note;
if(typeof data3 === "string"){
if(func3(data3) > 200){
const err10 = {instancePath:instancePath+"/note",schemaPath:"#/properties/note/maxLength",keyword:"maxLength",params:{limit: 200},message:"must NOT have more than 200 characters",schema:200,parentSchema:schema22.properties.note,data:data3};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
if(!pattern11.test(data3)){
const err11 = {instancePath:instancePath+"/note",schemaPath:"#/properties/note/pattern",keyword:"pattern",params:{pattern: "^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$"},message:"must match pattern \""+"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$"+"\"",schema:"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$",parentSchema:schema22.properties.note,data:data3};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
}
else {
const err12 = {instancePath:instancePath+"/note",schemaPath:"#/properties/note/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema22.properties.note.type,parentSchema:schema22.properties.note,data:data3};
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
else {
const err13 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema22.type,parentSchema:schema22,data};
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


function validate14(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
for(const key0 in data){
if(!(((((((key0 === "relay") || (key0 === "to")) || (key0 === "allow")) || (key0 === "tls")) || (key0 === "endpoint")) || (key0 === "instance-type")) || (key0 === "replicas"))){
const err0 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema16,data};
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
if(!pattern3.test(data0)){
const err1 = {instancePath:instancePath+"/relay",schemaPath:"#/definitions/name/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9-]{0,62}$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9-]{0,62}$"+"\"",schema:"^[a-z0-9][a-z0-9-]{0,62}$",parentSchema:schema14,data:data0};
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
const err2 = {instancePath:instancePath+"/relay",schemaPath:"#/definitions/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.type,parentSchema:schema14,data:data0};
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
let data1 = data.to;
if(typeof data1 === "string"){
if(func3(data1) > 259){
const err3 = {instancePath:instancePath+"/to",schemaPath:"#/definitions/target/maxLength",keyword:"maxLength",params:{limit: 259},message:"must NOT have more than 259 characters",schema:259,parentSchema:schema18,data:data1};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
if(func3(data1) < 1){
const err4 = {instancePath:instancePath+"/to",schemaPath:"#/definitions/target/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema18,data:data1};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
if(!pattern7.test(data1)){
const err5 = {instancePath:instancePath+"/to",schemaPath:"#/definitions/target/pattern",keyword:"pattern",params:{pattern: "^[$A-Za-z0-9.:_\\[\\]-]+$"},message:"must match pattern \""+"^[$A-Za-z0-9.:_\\[\\]-]+$"+"\"",schema:"^[$A-Za-z0-9.:_\\[\\]-]+$",parentSchema:schema18,data:data1};
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
const err6 = {instancePath:instancePath+"/to",schemaPath:"#/definitions/target/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema18.type,parentSchema:schema18,data:data1};
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
if(func3(data2) > 1024){
const err7 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/maxLength",keyword:"maxLength",params:{limit: 1024},message:"must NOT have more than 1024 characters",schema:1024,parentSchema:schema19,data:data2};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
if(func3(data2) < 1){
const err8 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema19,data:data2};
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
const err9 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema19.type,parentSchema:schema19,data:data2};
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
if(data.endpoint !== undefined){
if(!(validate15(data.endpoint, {instancePath:instancePath+"/endpoint",parentData:data,parentDataProperty:"endpoint",rootData}))){
vErrors = vErrors === null ? validate15.errors : vErrors.concat(validate15.errors);
errors = vErrors.length;
}
}
if(data["instance-type"] !== undefined){
if(!(validate17(data["instance-type"], {instancePath:instancePath+"/instance-type",parentData:data,parentDataProperty:"instance-type",rootData}))){
vErrors = vErrors === null ? validate17.errors : vErrors.concat(validate17.errors);
errors = vErrors.length;
}
}
if(data.replicas !== undefined){
let data6 = data.replicas;
if(!(((typeof data6 == "number") && (!(data6 % 1) && !isNaN(data6))) && (isFinite(data6)))){
const err11 = {instancePath:instancePath+"/replicas",schemaPath:"#/properties/replicas/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema16.properties.replicas.type,parentSchema:schema16.properties.replicas,data:data6};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
if((typeof data6 == "number") && (isFinite(data6))){
if(data6 > 16 || isNaN(data6)){
const err12 = {instancePath:instancePath+"/replicas",schemaPath:"#/properties/replicas/maximum",keyword:"maximum",params:{comparison: "<=", limit: 16},message:"must be <= 16",schema:16,parentSchema:schema16.properties.replicas,data:data6};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
if(data6 < 1 || isNaN(data6)){
const err13 = {instancePath:instancePath+"/replicas",schemaPath:"#/properties/replicas/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema16.properties.replicas,data:data6};
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
const err14 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema16.type,parentSchema:schema16,data};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
validate14.errors = vErrors;
return errors === 0;
}

const schema25 = {"title":"InletManifest","description":"The inlet node. For a single portal also its inlet (port is required then); with portals only instance-type.","type":"object","additionalProperties":false,"properties":{"port":{"description":"Local port the inlet listens on.","$ref":"#/definitions/port"},"via":{"description":"Relay through which the inlet reaches the outlet. @default the outlet's relay","$ref":"#/definitions/name"},"allow":{"description":"Who the inlet admits: an attribute the outlet ticket carries, or an expression its attributes meet. @default that attribute","$ref":"#/definitions/allow"},"tls":{"description":"The inlet serves TLS to its clients, with a certificate the project signs for <label>.<project_id>.<network_domain>. @default false","type":"boolean"},"instance-type":{"$ref":"#/definitions/instanceType"}}};

function validate20(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
for(const key0 in data){
if(!(((((key0 === "port") || (key0 === "via")) || (key0 === "allow")) || (key0 === "tls")) || (key0 === "instance-type"))){
const err0 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema25,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
}
if(data.port !== undefined){
let data0 = data.port;
if(!(((typeof data0 == "number") && (!(data0 % 1) && !isNaN(data0))) && (isFinite(data0)))){
const err1 = {instancePath:instancePath+"/port",schemaPath:"#/definitions/port/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema12.type,parentSchema:schema12,data:data0};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
if((typeof data0 == "number") && (isFinite(data0))){
if(data0 > 65535 || isNaN(data0)){
const err2 = {instancePath:instancePath+"/port",schemaPath:"#/definitions/port/maximum",keyword:"maximum",params:{comparison: "<=", limit: 65535},message:"must be <= 65535",schema:65535,parentSchema:schema12,data:data0};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
if(data0 < 1 || isNaN(data0)){
const err3 = {instancePath:instancePath+"/port",schemaPath:"#/definitions/port/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema12,data:data0};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
}
if(data.via !== undefined){
let data1 = data.via;
if(typeof data1 === "string"){
if(!pattern3.test(data1)){
const err4 = {instancePath:instancePath+"/via",schemaPath:"#/definitions/name/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9-]{0,62}$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9-]{0,62}$"+"\"",schema:"^[a-z0-9][a-z0-9-]{0,62}$",parentSchema:schema14,data:data1};
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
const err5 = {instancePath:instancePath+"/via",schemaPath:"#/definitions/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.type,parentSchema:schema14,data:data1};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
}
if(data.allow !== undefined){
let data2 = data.allow;
if(typeof data2 === "string"){
if(func3(data2) > 1024){
const err6 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/maxLength",keyword:"maxLength",params:{limit: 1024},message:"must NOT have more than 1024 characters",schema:1024,parentSchema:schema19,data:data2};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
if(func3(data2) < 1){
const err7 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema19,data:data2};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
else {
const err8 = {instancePath:instancePath+"/allow",schemaPath:"#/definitions/allow/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema19.type,parentSchema:schema19,data:data2};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
}
if(data.tls !== undefined){
let data3 = data.tls;
if(typeof data3 !== "boolean"){
const err9 = {instancePath:instancePath+"/tls",schemaPath:"#/properties/tls/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema25.properties.tls.type,parentSchema:schema25.properties.tls,data:data3};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
if(data["instance-type"] !== undefined){
if(!(validate17(data["instance-type"], {instancePath:instancePath+"/instance-type",parentData:data,parentDataProperty:"instance-type",rootData}))){
vErrors = vErrors === null ? validate17.errors : vErrors.concat(validate17.errors);
errors = vErrors.length;
}
}
}
else {
const err10 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema25.type,parentSchema:schema25,data};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
validate20.errors = vErrors;
return errors === 0;
}

const schema29 = {"title":"PortalManifest","description":"One portal of several: a target beside the outlet node, a port on the inlet node.","type":"object","additionalProperties":false,"required":["name","outlet","inlet"],"properties":{"name":{"$ref":"#/definitions/portalName"},"outlet":{"title":"PortalOutletManifest","type":"object","additionalProperties":false,"required":["to"],"properties":{"relay":{"description":"Relay this outlet registers; the outlet ticket grants it. @default the portal's name","$ref":"#/definitions/name"},"to":{"$ref":"#/definitions/target"},"allow":{"description":"Who the outlet admits: an attribute the inlet ticket carries, or an expression its attributes meet. @default that attribute","$ref":"#/definitions/allow"},"tls":{"description":"The outlet connects to this target over TLS and checks its certificate. @default false","type":"boolean"},"endpoint":{"$ref":"#/definitions/endpoint"}}},"inlet":{"title":"PortalInletManifest","type":"object","additionalProperties":false,"required":["port"],"properties":{"port":{"description":"Local port this inlet listens on.","$ref":"#/definitions/port"},"via":{"description":"Relay through which this inlet reaches its outlet. @default the outlet's relay","$ref":"#/definitions/name"},"allow":{"description":"Who the inlet admits: an attribute the outlet ticket carries, or an expression its attributes meet. @default that attribute","$ref":"#/definitions/allow"},"tls":{"description":"This inlet serves TLS to its clients. @default false","type":"boolean"}}},"verification":{"$ref":"#/definitions/verification"}}};
const schema30 = {"description":"Name of the portal: its key in the node configurations, its relay unless one is given, and part of its stack names.","type":"string","pattern":"^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$","x-expected":"a lower-case name of letters, digits and dashes, such as orders-db (at most 32, not ending in a dash)"};
const schema37 = {"title":"VerificationManifest","description":"How the administrator checks the portal through the inlet. @default {kind: tcp}","type":"object","discriminator":{"propertyName":"kind"},"oneOf":[{"title":"TcpVerification","description":"Connect through the inlet; optionally send bytes and expect the reply to begin with a prefix.","type":"object","additionalProperties":false,"required":["kind"],"properties":{"kind":{"const":"tcp"},"send":{"description":"Bytes to send once connected (the text as UTF-8), such as \"PING\\r\\n\".","type":"string","minLength":1,"maxLength":1024,"pattern":"^[^\\u0000]*$","x-expected":"text without NUL characters"},"expect":{"description":"What the reply must begin with.","type":"string","pattern":"^[\\u0020-\\u007e]{1,200}$","x-expected":"up to 200 printable ASCII characters, such as +PONG"},"label":{"$ref":"#/definitions/dnsLabel"}}},{"title":"HttpVerification","description":"An HTTP request through the inlet (HTTPS with the project's CA when the inlet serves TLS).","type":"object","additionalProperties":false,"required":["kind"],"properties":{"kind":{"const":"http"},"method":{"description":"@default GET","type":"string","enum":["GET","HEAD","POST","PUT","PATCH","DELETE","OPTIONS"]},"path":{"description":"Path of the request. @default /","$ref":"#/definitions/urlPath"},"status":{"description":"The HTTP status expected. @default 200","type":"integer","minimum":100,"maximum":599},"label":{"$ref":"#/definitions/dnsLabel"}}},{"title":"CommandVerification","description":"A client program run against the inlet. Its words are given as a list; {host}, {port}, {name} (the TLS inlet's name) and {ca} (the project CA file) are filled in as separate, quoted words; {env:NAME} is the environment variable NAME where the check runs, for a password, which is never written into the generated files (a word that holds one is refused).","type":"object","additionalProperties":false,"required":["kind","run"],"properties":{"kind":{"const":"command"},"run":{"description":"The program and its arguments, such as [redis-cli, -h, \"{host}\", -p, \"{port}\", PING].","type":"array","minItems":1,"maxItems":64,"items":{"type":"string","minLength":1,"maxLength":1024,"pattern":"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$","x-expected":"one line of text without control characters"}},"expect":{"description":"Text the command's output must contain.","type":"string","pattern":"^[\\u0020-\\u007e]{1,200}$","x-expected":"up to 200 printable ASCII characters, such as PONG"},"label":{"$ref":"#/definitions/dnsLabel"}}},{"title":"WebhookVerification","type":"object","additionalProperties":false,"required":["kind","path"],"properties":{"kind":{"const":"webhook"},"path":{"description":"Path the receiver accepts POSTs on.","$ref":"#/definitions/urlPath"}}},{"title":"PsqlVerification","type":"object","additionalProperties":false,"required":["kind","table"],"properties":{"kind":{"const":"psql"},"table":{"description":"Name of the scratch table the verification creates and drops.","type":"string","pattern":"^[a-z_][a-z0-9_]{0,62}$","x-expected":"a lower-case SQL table name such as portal_check"}}},{"title":"InvokeModelVerification","type":"object","additionalProperties":false,"required":["kind","model-id","region"],"properties":{"kind":{"const":"invoke-model"},"model-id":{"description":"Model the guide invokes.","type":"string","pattern":"^[A-Za-z0-9.:_-]+$","maxLength":200,"x-expected":"a model id such as amazon.titan-text-express-v1"},"label":{"$ref":"#/definitions/dnsLabel"},"region":{"description":"Example region for the guide's AWS_REGION.","type":"string","pattern":"^[a-z]{2}(-[a-z]+)+-[0-9]$","x-expected":"an AWS region such as us-east-1"}}}]};
const schema38 = {"description":"Left-most label of the TLS inlet's name <label>.<project_id>.<network_domain>, which clients connect to. @default the portal's name","type":"string","pattern":"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$","x-expected":"a DNS label such as bedrock"};
const schema39 = {"type":"string","pattern":"^/([A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*$","maxLength":200,"x-expected":"a URL path: / followed by letters, digits, -._~!$&'()*+,;=:@/ and %XX escapes, such as /index.html"};
const pattern21 = new RegExp("^[^\\u0000]*$", "u");
const pattern22 = new RegExp("^[\\u0020-\\u007e]{1,200}$", "u");
const pattern23 = new RegExp("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", "u");
const pattern24 = new RegExp("^/([A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*$", "u");
const pattern30 = new RegExp("^[a-z_][a-z0-9_]{0,62}$", "u");
const pattern31 = new RegExp("^[A-Za-z0-9.:_-]+$", "u");
const pattern33 = new RegExp("^[a-z]{2}(-[a-z]+)+-[0-9]$", "u");

function validate25(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
const tag0 = data.kind;
if(typeof tag0 == "string"){
if(tag0 === "tcp"){
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.kind === undefined){
const err0 = {instancePath,schemaPath:"#/oneOf/0/required",keyword:"required",params:{missingProperty: "kind"},message:"must have required property '"+"kind"+"'",schema:schema37.oneOf[0].required,parentSchema:schema37.oneOf[0],data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
for(const key0 in data){
if(!((((key0 === "kind") || (key0 === "send")) || (key0 === "expect")) || (key0 === "label"))){
const err1 = {instancePath,schemaPath:"#/oneOf/0/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema37.oneOf[0],data};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
if(data.kind !== undefined){
let data0 = data.kind;
if("tcp" !== data0){
const err2 = {instancePath:instancePath+"/kind",schemaPath:"#/oneOf/0/properties/kind/const",keyword:"const",params:{allowedValue: "tcp"},message:"must be equal to constant",schema:"tcp",parentSchema:schema37.oneOf[0].properties.kind,data:data0};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
}
if(data.send !== undefined){
let data1 = data.send;
if(typeof data1 === "string"){
if(func3(data1) > 1024){
const err3 = {instancePath:instancePath+"/send",schemaPath:"#/oneOf/0/properties/send/maxLength",keyword:"maxLength",params:{limit: 1024},message:"must NOT have more than 1024 characters",schema:1024,parentSchema:schema37.oneOf[0].properties.send,data:data1};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
if(func3(data1) < 1){
const err4 = {instancePath:instancePath+"/send",schemaPath:"#/oneOf/0/properties/send/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema37.oneOf[0].properties.send,data:data1};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
if(!pattern21.test(data1)){
const err5 = {instancePath:instancePath+"/send",schemaPath:"#/oneOf/0/properties/send/pattern",keyword:"pattern",params:{pattern: "^[^\\u0000]*$"},message:"must match pattern \""+"^[^\\u0000]*$"+"\"",schema:"^[^\\u0000]*$",parentSchema:schema37.oneOf[0].properties.send,data:data1};
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
const err6 = {instancePath:instancePath+"/send",schemaPath:"#/oneOf/0/properties/send/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema37.oneOf[0].properties.send.type,parentSchema:schema37.oneOf[0].properties.send,data:data1};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
if(data.expect !== undefined){
let data2 = data.expect;
if(typeof data2 === "string"){
if(!pattern22.test(data2)){
const err7 = {instancePath:instancePath+"/expect",schemaPath:"#/oneOf/0/properties/expect/pattern",keyword:"pattern",params:{pattern: "^[\\u0020-\\u007e]{1,200}$"},message:"must match pattern \""+"^[\\u0020-\\u007e]{1,200}$"+"\"",schema:"^[\\u0020-\\u007e]{1,200}$",parentSchema:schema37.oneOf[0].properties.expect,data:data2};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
else {
const err8 = {instancePath:instancePath+"/expect",schemaPath:"#/oneOf/0/properties/expect/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema37.oneOf[0].properties.expect.type,parentSchema:schema37.oneOf[0].properties.expect,data:data2};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
}
if(data.label !== undefined){
let data3 = data.label;
if(typeof data3 === "string"){
if(!pattern23.test(data3)){
const err9 = {instancePath:instancePath+"/label",schemaPath:"#/definitions/dnsLabel/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"},message:"must match pattern \""+"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"+"\"",schema:"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$",parentSchema:schema38,data:data3};
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
const err10 = {instancePath:instancePath+"/label",schemaPath:"#/definitions/dnsLabel/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema38.type,parentSchema:schema38,data:data3};
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
const err11 = {instancePath,schemaPath:"#/oneOf/0/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema37.oneOf[0].type,parentSchema:schema37.oneOf[0],data};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
}
else if(tag0 === "http"){
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.kind === undefined){
const err12 = {instancePath,schemaPath:"#/oneOf/1/required",keyword:"required",params:{missingProperty: "kind"},message:"must have required property '"+"kind"+"'",schema:schema37.oneOf[1].required,parentSchema:schema37.oneOf[1],data};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
for(const key1 in data){
if(!(((((key1 === "kind") || (key1 === "method")) || (key1 === "path")) || (key1 === "status")) || (key1 === "label"))){
const err13 = {instancePath,schemaPath:"#/oneOf/1/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key1},message:"must NOT have additional properties",schema:false,parentSchema:schema37.oneOf[1],data};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
}
if(data.kind !== undefined){
let data4 = data.kind;
if("http" !== data4){
const err14 = {instancePath:instancePath+"/kind",schemaPath:"#/oneOf/1/properties/kind/const",keyword:"const",params:{allowedValue: "http"},message:"must be equal to constant",schema:"http",parentSchema:schema37.oneOf[1].properties.kind,data:data4};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
}
if(data.method !== undefined){
let data5 = data.method;
if(typeof data5 !== "string"){
const err15 = {instancePath:instancePath+"/method",schemaPath:"#/oneOf/1/properties/method/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema37.oneOf[1].properties.method.type,parentSchema:schema37.oneOf[1].properties.method,data:data5};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
if(!(((((((data5 === "GET") || (data5 === "HEAD")) || (data5 === "POST")) || (data5 === "PUT")) || (data5 === "PATCH")) || (data5 === "DELETE")) || (data5 === "OPTIONS"))){
const err16 = {instancePath:instancePath+"/method",schemaPath:"#/oneOf/1/properties/method/enum",keyword:"enum",params:{allowedValues: schema37.oneOf[1].properties.method.enum},message:"must be equal to one of the allowed values",schema:schema37.oneOf[1].properties.method.enum,parentSchema:schema37.oneOf[1].properties.method,data:data5};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
}
if(data.path !== undefined){
let data6 = data.path;
if(typeof data6 === "string"){
if(func3(data6) > 200){
const err17 = {instancePath:instancePath+"/path",schemaPath:"#/definitions/urlPath/maxLength",keyword:"maxLength",params:{limit: 200},message:"must NOT have more than 200 characters",schema:200,parentSchema:schema39,data:data6};
if(vErrors === null){
vErrors = [err17];
}
else {
vErrors.push(err17);
}
errors++;
}
if(!pattern24.test(data6)){
const err18 = {instancePath:instancePath+"/path",schemaPath:"#/definitions/urlPath/pattern",keyword:"pattern",params:{pattern: "^/([A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*$"},message:"must match pattern \""+"^/([A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*$"+"\"",schema:"^/([A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*$",parentSchema:schema39,data:data6};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
}
else {
const err19 = {instancePath:instancePath+"/path",schemaPath:"#/definitions/urlPath/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema39.type,parentSchema:schema39,data:data6};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
}
if(data.status !== undefined){
let data7 = data.status;
if(!(((typeof data7 == "number") && (!(data7 % 1) && !isNaN(data7))) && (isFinite(data7)))){
const err20 = {instancePath:instancePath+"/status",schemaPath:"#/oneOf/1/properties/status/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema37.oneOf[1].properties.status.type,parentSchema:schema37.oneOf[1].properties.status,data:data7};
if(vErrors === null){
vErrors = [err20];
}
else {
vErrors.push(err20);
}
errors++;
}
if((typeof data7 == "number") && (isFinite(data7))){
if(data7 > 599 || isNaN(data7)){
const err21 = {instancePath:instancePath+"/status",schemaPath:"#/oneOf/1/properties/status/maximum",keyword:"maximum",params:{comparison: "<=", limit: 599},message:"must be <= 599",schema:599,parentSchema:schema37.oneOf[1].properties.status,data:data7};
if(vErrors === null){
vErrors = [err21];
}
else {
vErrors.push(err21);
}
errors++;
}
if(data7 < 100 || isNaN(data7)){
const err22 = {instancePath:instancePath+"/status",schemaPath:"#/oneOf/1/properties/status/minimum",keyword:"minimum",params:{comparison: ">=", limit: 100},message:"must be >= 100",schema:100,parentSchema:schema37.oneOf[1].properties.status,data:data7};
if(vErrors === null){
vErrors = [err22];
}
else {
vErrors.push(err22);
}
errors++;
}
}
}
if(data.label !== undefined){
let data8 = data.label;
if(typeof data8 === "string"){
if(!pattern23.test(data8)){
const err23 = {instancePath:instancePath+"/label",schemaPath:"#/definitions/dnsLabel/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"},message:"must match pattern \""+"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"+"\"",schema:"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$",parentSchema:schema38,data:data8};
if(vErrors === null){
vErrors = [err23];
}
else {
vErrors.push(err23);
}
errors++;
}
}
else {
const err24 = {instancePath:instancePath+"/label",schemaPath:"#/definitions/dnsLabel/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema38.type,parentSchema:schema38,data:data8};
if(vErrors === null){
vErrors = [err24];
}
else {
vErrors.push(err24);
}
errors++;
}
}
}
else {
const err25 = {instancePath,schemaPath:"#/oneOf/1/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema37.oneOf[1].type,parentSchema:schema37.oneOf[1],data};
if(vErrors === null){
vErrors = [err25];
}
else {
vErrors.push(err25);
}
errors++;
}
}
else if(tag0 === "command"){
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.kind === undefined){
const err26 = {instancePath,schemaPath:"#/oneOf/2/required",keyword:"required",params:{missingProperty: "kind"},message:"must have required property '"+"kind"+"'",schema:schema37.oneOf[2].required,parentSchema:schema37.oneOf[2],data};
if(vErrors === null){
vErrors = [err26];
}
else {
vErrors.push(err26);
}
errors++;
}
if(data.run === undefined){
const err27 = {instancePath,schemaPath:"#/oneOf/2/required",keyword:"required",params:{missingProperty: "run"},message:"must have required property '"+"run"+"'",schema:schema37.oneOf[2].required,parentSchema:schema37.oneOf[2],data};
if(vErrors === null){
vErrors = [err27];
}
else {
vErrors.push(err27);
}
errors++;
}
for(const key2 in data){
if(!((((key2 === "kind") || (key2 === "run")) || (key2 === "expect")) || (key2 === "label"))){
const err28 = {instancePath,schemaPath:"#/oneOf/2/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key2},message:"must NOT have additional properties",schema:false,parentSchema:schema37.oneOf[2],data};
if(vErrors === null){
vErrors = [err28];
}
else {
vErrors.push(err28);
}
errors++;
}
}
if(data.kind !== undefined){
let data9 = data.kind;
if("command" !== data9){
const err29 = {instancePath:instancePath+"/kind",schemaPath:"#/oneOf/2/properties/kind/const",keyword:"const",params:{allowedValue: "command"},message:"must be equal to constant",schema:"command",parentSchema:schema37.oneOf[2].properties.kind,data:data9};
if(vErrors === null){
vErrors = [err29];
}
else {
vErrors.push(err29);
}
errors++;
}
}
if(data.run !== undefined){
let data10 = data.run;
if(Array.isArray(data10)){
if(data10.length > 64){
const err30 = {instancePath:instancePath+"/run",schemaPath:"#/oneOf/2/properties/run/maxItems",keyword:"maxItems",params:{limit: 64},message:"must NOT have more than 64 items",schema:64,parentSchema:schema37.oneOf[2].properties.run,data:data10};
if(vErrors === null){
vErrors = [err30];
}
else {
vErrors.push(err30);
}
errors++;
}
if(data10.length < 1){
const err31 = {instancePath:instancePath+"/run",schemaPath:"#/oneOf/2/properties/run/minItems",keyword:"minItems",params:{limit: 1},message:"must NOT have fewer than 1 items",schema:1,parentSchema:schema37.oneOf[2].properties.run,data:data10};
if(vErrors === null){
vErrors = [err31];
}
else {
vErrors.push(err31);
}
errors++;
}
const len0 = data10.length;
for(let i0=0; i0<len0; i0++){
let data11 = data10[i0];
if(typeof data11 === "string"){
if(func3(data11) > 1024){
const err32 = {instancePath:instancePath+"/run/" + i0,schemaPath:"#/oneOf/2/properties/run/items/maxLength",keyword:"maxLength",params:{limit: 1024},message:"must NOT have more than 1024 characters",schema:1024,parentSchema:schema37.oneOf[2].properties.run.items,data:data11};
if(vErrors === null){
vErrors = [err32];
}
else {
vErrors.push(err32);
}
errors++;
}
if(func3(data11) < 1){
const err33 = {instancePath:instancePath+"/run/" + i0,schemaPath:"#/oneOf/2/properties/run/items/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema37.oneOf[2].properties.run.items,data:data11};
if(vErrors === null){
vErrors = [err33];
}
else {
vErrors.push(err33);
}
errors++;
}
if(!pattern11.test(data11)){
const err34 = {instancePath:instancePath+"/run/" + i0,schemaPath:"#/oneOf/2/properties/run/items/pattern",keyword:"pattern",params:{pattern: "^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$"},message:"must match pattern \""+"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$"+"\"",schema:"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$",parentSchema:schema37.oneOf[2].properties.run.items,data:data11};
if(vErrors === null){
vErrors = [err34];
}
else {
vErrors.push(err34);
}
errors++;
}
}
else {
const err35 = {instancePath:instancePath+"/run/" + i0,schemaPath:"#/oneOf/2/properties/run/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema37.oneOf[2].properties.run.items.type,parentSchema:schema37.oneOf[2].properties.run.items,data:data11};
if(vErrors === null){
vErrors = [err35];
}
else {
vErrors.push(err35);
}
errors++;
}
}
}
else {
const err36 = {instancePath:instancePath+"/run",schemaPath:"#/oneOf/2/properties/run/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema37.oneOf[2].properties.run.type,parentSchema:schema37.oneOf[2].properties.run,data:data10};
if(vErrors === null){
vErrors = [err36];
}
else {
vErrors.push(err36);
}
errors++;
}
}
if(data.expect !== undefined){
let data12 = data.expect;
if(typeof data12 === "string"){
if(!pattern22.test(data12)){
const err37 = {instancePath:instancePath+"/expect",schemaPath:"#/oneOf/2/properties/expect/pattern",keyword:"pattern",params:{pattern: "^[\\u0020-\\u007e]{1,200}$"},message:"must match pattern \""+"^[\\u0020-\\u007e]{1,200}$"+"\"",schema:"^[\\u0020-\\u007e]{1,200}$",parentSchema:schema37.oneOf[2].properties.expect,data:data12};
if(vErrors === null){
vErrors = [err37];
}
else {
vErrors.push(err37);
}
errors++;
}
}
else {
const err38 = {instancePath:instancePath+"/expect",schemaPath:"#/oneOf/2/properties/expect/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema37.oneOf[2].properties.expect.type,parentSchema:schema37.oneOf[2].properties.expect,data:data12};
if(vErrors === null){
vErrors = [err38];
}
else {
vErrors.push(err38);
}
errors++;
}
}
if(data.label !== undefined){
let data13 = data.label;
if(typeof data13 === "string"){
if(!pattern23.test(data13)){
const err39 = {instancePath:instancePath+"/label",schemaPath:"#/definitions/dnsLabel/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"},message:"must match pattern \""+"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"+"\"",schema:"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$",parentSchema:schema38,data:data13};
if(vErrors === null){
vErrors = [err39];
}
else {
vErrors.push(err39);
}
errors++;
}
}
else {
const err40 = {instancePath:instancePath+"/label",schemaPath:"#/definitions/dnsLabel/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema38.type,parentSchema:schema38,data:data13};
if(vErrors === null){
vErrors = [err40];
}
else {
vErrors.push(err40);
}
errors++;
}
}
}
else {
const err41 = {instancePath,schemaPath:"#/oneOf/2/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema37.oneOf[2].type,parentSchema:schema37.oneOf[2],data};
if(vErrors === null){
vErrors = [err41];
}
else {
vErrors.push(err41);
}
errors++;
}
}
else if(tag0 === "webhook"){
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.kind === undefined){
const err42 = {instancePath,schemaPath:"#/oneOf/3/required",keyword:"required",params:{missingProperty: "kind"},message:"must have required property '"+"kind"+"'",schema:schema37.oneOf[3].required,parentSchema:schema37.oneOf[3],data};
if(vErrors === null){
vErrors = [err42];
}
else {
vErrors.push(err42);
}
errors++;
}
if(data.path === undefined){
const err43 = {instancePath,schemaPath:"#/oneOf/3/required",keyword:"required",params:{missingProperty: "path"},message:"must have required property '"+"path"+"'",schema:schema37.oneOf[3].required,parentSchema:schema37.oneOf[3],data};
if(vErrors === null){
vErrors = [err43];
}
else {
vErrors.push(err43);
}
errors++;
}
for(const key3 in data){
if(!((key3 === "kind") || (key3 === "path"))){
const err44 = {instancePath,schemaPath:"#/oneOf/3/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key3},message:"must NOT have additional properties",schema:false,parentSchema:schema37.oneOf[3],data};
if(vErrors === null){
vErrors = [err44];
}
else {
vErrors.push(err44);
}
errors++;
}
}
if(data.kind !== undefined){
let data14 = data.kind;
if("webhook" !== data14){
const err45 = {instancePath:instancePath+"/kind",schemaPath:"#/oneOf/3/properties/kind/const",keyword:"const",params:{allowedValue: "webhook"},message:"must be equal to constant",schema:"webhook",parentSchema:schema37.oneOf[3].properties.kind,data:data14};
if(vErrors === null){
vErrors = [err45];
}
else {
vErrors.push(err45);
}
errors++;
}
}
if(data.path !== undefined){
let data15 = data.path;
if(typeof data15 === "string"){
if(func3(data15) > 200){
const err46 = {instancePath:instancePath+"/path",schemaPath:"#/definitions/urlPath/maxLength",keyword:"maxLength",params:{limit: 200},message:"must NOT have more than 200 characters",schema:200,parentSchema:schema39,data:data15};
if(vErrors === null){
vErrors = [err46];
}
else {
vErrors.push(err46);
}
errors++;
}
if(!pattern24.test(data15)){
const err47 = {instancePath:instancePath+"/path",schemaPath:"#/definitions/urlPath/pattern",keyword:"pattern",params:{pattern: "^/([A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*$"},message:"must match pattern \""+"^/([A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*$"+"\"",schema:"^/([A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*$",parentSchema:schema39,data:data15};
if(vErrors === null){
vErrors = [err47];
}
else {
vErrors.push(err47);
}
errors++;
}
}
else {
const err48 = {instancePath:instancePath+"/path",schemaPath:"#/definitions/urlPath/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema39.type,parentSchema:schema39,data:data15};
if(vErrors === null){
vErrors = [err48];
}
else {
vErrors.push(err48);
}
errors++;
}
}
}
else {
const err49 = {instancePath,schemaPath:"#/oneOf/3/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema37.oneOf[3].type,parentSchema:schema37.oneOf[3],data};
if(vErrors === null){
vErrors = [err49];
}
else {
vErrors.push(err49);
}
errors++;
}
}
else if(tag0 === "psql"){
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.kind === undefined){
const err50 = {instancePath,schemaPath:"#/oneOf/4/required",keyword:"required",params:{missingProperty: "kind"},message:"must have required property '"+"kind"+"'",schema:schema37.oneOf[4].required,parentSchema:schema37.oneOf[4],data};
if(vErrors === null){
vErrors = [err50];
}
else {
vErrors.push(err50);
}
errors++;
}
if(data.table === undefined){
const err51 = {instancePath,schemaPath:"#/oneOf/4/required",keyword:"required",params:{missingProperty: "table"},message:"must have required property '"+"table"+"'",schema:schema37.oneOf[4].required,parentSchema:schema37.oneOf[4],data};
if(vErrors === null){
vErrors = [err51];
}
else {
vErrors.push(err51);
}
errors++;
}
for(const key4 in data){
if(!((key4 === "kind") || (key4 === "table"))){
const err52 = {instancePath,schemaPath:"#/oneOf/4/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key4},message:"must NOT have additional properties",schema:false,parentSchema:schema37.oneOf[4],data};
if(vErrors === null){
vErrors = [err52];
}
else {
vErrors.push(err52);
}
errors++;
}
}
if(data.kind !== undefined){
let data16 = data.kind;
if("psql" !== data16){
const err53 = {instancePath:instancePath+"/kind",schemaPath:"#/oneOf/4/properties/kind/const",keyword:"const",params:{allowedValue: "psql"},message:"must be equal to constant",schema:"psql",parentSchema:schema37.oneOf[4].properties.kind,data:data16};
if(vErrors === null){
vErrors = [err53];
}
else {
vErrors.push(err53);
}
errors++;
}
}
if(data.table !== undefined){
let data17 = data.table;
if(typeof data17 === "string"){
if(!pattern30.test(data17)){
const err54 = {instancePath:instancePath+"/table",schemaPath:"#/oneOf/4/properties/table/pattern",keyword:"pattern",params:{pattern: "^[a-z_][a-z0-9_]{0,62}$"},message:"must match pattern \""+"^[a-z_][a-z0-9_]{0,62}$"+"\"",schema:"^[a-z_][a-z0-9_]{0,62}$",parentSchema:schema37.oneOf[4].properties.table,data:data17};
if(vErrors === null){
vErrors = [err54];
}
else {
vErrors.push(err54);
}
errors++;
}
}
else {
const err55 = {instancePath:instancePath+"/table",schemaPath:"#/oneOf/4/properties/table/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema37.oneOf[4].properties.table.type,parentSchema:schema37.oneOf[4].properties.table,data:data17};
if(vErrors === null){
vErrors = [err55];
}
else {
vErrors.push(err55);
}
errors++;
}
}
}
else {
const err56 = {instancePath,schemaPath:"#/oneOf/4/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema37.oneOf[4].type,parentSchema:schema37.oneOf[4],data};
if(vErrors === null){
vErrors = [err56];
}
else {
vErrors.push(err56);
}
errors++;
}
}
else if(tag0 === "invoke-model"){
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.kind === undefined){
const err57 = {instancePath,schemaPath:"#/oneOf/5/required",keyword:"required",params:{missingProperty: "kind"},message:"must have required property '"+"kind"+"'",schema:schema37.oneOf[5].required,parentSchema:schema37.oneOf[5],data};
if(vErrors === null){
vErrors = [err57];
}
else {
vErrors.push(err57);
}
errors++;
}
if(data["model-id"] === undefined){
const err58 = {instancePath,schemaPath:"#/oneOf/5/required",keyword:"required",params:{missingProperty: "model-id"},message:"must have required property '"+"model-id"+"'",schema:schema37.oneOf[5].required,parentSchema:schema37.oneOf[5],data};
if(vErrors === null){
vErrors = [err58];
}
else {
vErrors.push(err58);
}
errors++;
}
if(data.region === undefined){
const err59 = {instancePath,schemaPath:"#/oneOf/5/required",keyword:"required",params:{missingProperty: "region"},message:"must have required property '"+"region"+"'",schema:schema37.oneOf[5].required,parentSchema:schema37.oneOf[5],data};
if(vErrors === null){
vErrors = [err59];
}
else {
vErrors.push(err59);
}
errors++;
}
for(const key5 in data){
if(!((((key5 === "kind") || (key5 === "model-id")) || (key5 === "label")) || (key5 === "region"))){
const err60 = {instancePath,schemaPath:"#/oneOf/5/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key5},message:"must NOT have additional properties",schema:false,parentSchema:schema37.oneOf[5],data};
if(vErrors === null){
vErrors = [err60];
}
else {
vErrors.push(err60);
}
errors++;
}
}
if(data.kind !== undefined){
let data18 = data.kind;
if("invoke-model" !== data18){
const err61 = {instancePath:instancePath+"/kind",schemaPath:"#/oneOf/5/properties/kind/const",keyword:"const",params:{allowedValue: "invoke-model"},message:"must be equal to constant",schema:"invoke-model",parentSchema:schema37.oneOf[5].properties.kind,data:data18};
if(vErrors === null){
vErrors = [err61];
}
else {
vErrors.push(err61);
}
errors++;
}
}
if(data["model-id"] !== undefined){
let data19 = data["model-id"];
if(typeof data19 === "string"){
if(func3(data19) > 200){
const err62 = {instancePath:instancePath+"/model-id",schemaPath:"#/oneOf/5/properties/model-id/maxLength",keyword:"maxLength",params:{limit: 200},message:"must NOT have more than 200 characters",schema:200,parentSchema:schema37.oneOf[5].properties["model-id"],data:data19};
if(vErrors === null){
vErrors = [err62];
}
else {
vErrors.push(err62);
}
errors++;
}
if(!pattern31.test(data19)){
const err63 = {instancePath:instancePath+"/model-id",schemaPath:"#/oneOf/5/properties/model-id/pattern",keyword:"pattern",params:{pattern: "^[A-Za-z0-9.:_-]+$"},message:"must match pattern \""+"^[A-Za-z0-9.:_-]+$"+"\"",schema:"^[A-Za-z0-9.:_-]+$",parentSchema:schema37.oneOf[5].properties["model-id"],data:data19};
if(vErrors === null){
vErrors = [err63];
}
else {
vErrors.push(err63);
}
errors++;
}
}
else {
const err64 = {instancePath:instancePath+"/model-id",schemaPath:"#/oneOf/5/properties/model-id/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema37.oneOf[5].properties["model-id"].type,parentSchema:schema37.oneOf[5].properties["model-id"],data:data19};
if(vErrors === null){
vErrors = [err64];
}
else {
vErrors.push(err64);
}
errors++;
}
}
if(data.label !== undefined){
let data20 = data.label;
if(typeof data20 === "string"){
if(!pattern23.test(data20)){
const err65 = {instancePath:instancePath+"/label",schemaPath:"#/definitions/dnsLabel/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"},message:"must match pattern \""+"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"+"\"",schema:"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$",parentSchema:schema38,data:data20};
if(vErrors === null){
vErrors = [err65];
}
else {
vErrors.push(err65);
}
errors++;
}
}
else {
const err66 = {instancePath:instancePath+"/label",schemaPath:"#/definitions/dnsLabel/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema38.type,parentSchema:schema38,data:data20};
if(vErrors === null){
vErrors = [err66];
}
else {
vErrors.push(err66);
}
errors++;
}
}
if(data.region !== undefined){
let data21 = data.region;
if(typeof data21 === "string"){
if(!pattern33.test(data21)){
const err67 = {instancePath:instancePath+"/region",schemaPath:"#/oneOf/5/properties/region/pattern",keyword:"pattern",params:{pattern: "^[a-z]{2}(-[a-z]+)+-[0-9]$"},message:"must match pattern \""+"^[a-z]{2}(-[a-z]+)+-[0-9]$"+"\"",schema:"^[a-z]{2}(-[a-z]+)+-[0-9]$",parentSchema:schema37.oneOf[5].properties.region,data:data21};
if(vErrors === null){
vErrors = [err67];
}
else {
vErrors.push(err67);
}
errors++;
}
}
else {
const err68 = {instancePath:instancePath+"/region",schemaPath:"#/oneOf/5/properties/region/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema37.oneOf[5].properties.region.type,parentSchema:schema37.oneOf[5].properties.region,data:data21};
if(vErrors === null){
vErrors = [err68];
}
else {
vErrors.push(err68);
}
errors++;
}
}
}
else {
const err69 = {instancePath,schemaPath:"#/oneOf/5/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema37.oneOf[5].type,parentSchema:schema37.oneOf[5],data};
if(vErrors === null){
vErrors = [err69];
}
else {
vErrors.push(err69);
}
errors++;
}
}
else {
const err70 = {instancePath,schemaPath:"#/discriminator",keyword:"discriminator",params:{error: "mapping", tag: "kind", tagValue: tag0},message:"value of tag \"kind\" must be in oneOf",schema:schema37.discriminator,parentSchema:schema37,data};
if(vErrors === null){
vErrors = [err70];
}
else {
vErrors.push(err70);
}
errors++;
}
}
else {
const err71 = {instancePath,schemaPath:"#/discriminator",keyword:"discriminator",params:{error: "tag", tag: "kind", tagValue: tag0},message:"tag \"kind\" must be string",schema:schema37.discriminator,parentSchema:schema37,data};
if(vErrors === null){
vErrors = [err71];
}
else {
vErrors.push(err71);
}
errors++;
}
}
else {
const err72 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema37.type,parentSchema:schema37,data};
if(vErrors === null){
vErrors = [err72];
}
else {
vErrors.push(err72);
}
errors++;
}
validate25.errors = vErrors;
return errors === 0;
}


function validate23(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.name === undefined){
const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "name"},message:"must have required property '"+"name"+"'",schema:schema29.required,parentSchema:schema29,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
if(data.outlet === undefined){
const err1 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "outlet"},message:"must have required property '"+"outlet"+"'",schema:schema29.required,parentSchema:schema29,data};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
if(data.inlet === undefined){
const err2 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "inlet"},message:"must have required property '"+"inlet"+"'",schema:schema29.required,parentSchema:schema29,data};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
for(const key0 in data){
if(!((((key0 === "name") || (key0 === "outlet")) || (key0 === "inlet")) || (key0 === "verification"))){
const err3 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema29,data};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
if(data.name !== undefined){
let data0 = data.name;
if(typeof data0 === "string"){
if(!pattern0.test(data0)){
const err4 = {instancePath:instancePath+"/name",schemaPath:"#/definitions/portalName/pattern",keyword:"pattern",params:{pattern: "^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$"},message:"must match pattern \""+"^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$"+"\"",schema:"^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$",parentSchema:schema30,data:data0};
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
const err5 = {instancePath:instancePath+"/name",schemaPath:"#/definitions/portalName/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema30.type,parentSchema:schema30,data:data0};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
}
if(data.outlet !== undefined){
let data1 = data.outlet;
if(data1 && typeof data1 == "object" && !Array.isArray(data1)){
if(data1.to === undefined){
const err6 = {instancePath:instancePath+"/outlet",schemaPath:"#/properties/outlet/required",keyword:"required",params:{missingProperty: "to"},message:"must have required property '"+"to"+"'",schema:schema29.properties.outlet.required,parentSchema:schema29.properties.outlet,data:data1};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
for(const key1 in data1){
if(!(((((key1 === "relay") || (key1 === "to")) || (key1 === "allow")) || (key1 === "tls")) || (key1 === "endpoint"))){
const err7 = {instancePath:instancePath+"/outlet",schemaPath:"#/properties/outlet/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key1},message:"must NOT have additional properties",schema:false,parentSchema:schema29.properties.outlet,data:data1};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
if(data1.relay !== undefined){
let data2 = data1.relay;
if(typeof data2 === "string"){
if(!pattern3.test(data2)){
const err8 = {instancePath:instancePath+"/outlet/relay",schemaPath:"#/definitions/name/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9-]{0,62}$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9-]{0,62}$"+"\"",schema:"^[a-z0-9][a-z0-9-]{0,62}$",parentSchema:schema14,data:data2};
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
const err9 = {instancePath:instancePath+"/outlet/relay",schemaPath:"#/definitions/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.type,parentSchema:schema14,data:data2};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
if(data1.to !== undefined){
let data3 = data1.to;
if(typeof data3 === "string"){
if(func3(data3) > 259){
const err10 = {instancePath:instancePath+"/outlet/to",schemaPath:"#/definitions/target/maxLength",keyword:"maxLength",params:{limit: 259},message:"must NOT have more than 259 characters",schema:259,parentSchema:schema18,data:data3};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
if(func3(data3) < 1){
const err11 = {instancePath:instancePath+"/outlet/to",schemaPath:"#/definitions/target/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema18,data:data3};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
if(!pattern7.test(data3)){
const err12 = {instancePath:instancePath+"/outlet/to",schemaPath:"#/definitions/target/pattern",keyword:"pattern",params:{pattern: "^[$A-Za-z0-9.:_\\[\\]-]+$"},message:"must match pattern \""+"^[$A-Za-z0-9.:_\\[\\]-]+$"+"\"",schema:"^[$A-Za-z0-9.:_\\[\\]-]+$",parentSchema:schema18,data:data3};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
}
else {
const err13 = {instancePath:instancePath+"/outlet/to",schemaPath:"#/definitions/target/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema18.type,parentSchema:schema18,data:data3};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
}
if(data1.allow !== undefined){
let data4 = data1.allow;
if(typeof data4 === "string"){
if(func3(data4) > 1024){
const err14 = {instancePath:instancePath+"/outlet/allow",schemaPath:"#/definitions/allow/maxLength",keyword:"maxLength",params:{limit: 1024},message:"must NOT have more than 1024 characters",schema:1024,parentSchema:schema19,data:data4};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
if(func3(data4) < 1){
const err15 = {instancePath:instancePath+"/outlet/allow",schemaPath:"#/definitions/allow/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema19,data:data4};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
}
else {
const err16 = {instancePath:instancePath+"/outlet/allow",schemaPath:"#/definitions/allow/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema19.type,parentSchema:schema19,data:data4};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
}
if(data1.tls !== undefined){
let data5 = data1.tls;
if(typeof data5 !== "boolean"){
const err17 = {instancePath:instancePath+"/outlet/tls",schemaPath:"#/properties/outlet/properties/tls/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema29.properties.outlet.properties.tls.type,parentSchema:schema29.properties.outlet.properties.tls,data:data5};
if(vErrors === null){
vErrors = [err17];
}
else {
vErrors.push(err17);
}
errors++;
}
}
if(data1.endpoint !== undefined){
if(!(validate15(data1.endpoint, {instancePath:instancePath+"/outlet/endpoint",parentData:data1,parentDataProperty:"endpoint",rootData}))){
vErrors = vErrors === null ? validate15.errors : vErrors.concat(validate15.errors);
errors = vErrors.length;
}
}
}
else {
const err18 = {instancePath:instancePath+"/outlet",schemaPath:"#/properties/outlet/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema29.properties.outlet.type,parentSchema:schema29.properties.outlet,data:data1};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
}
if(data.inlet !== undefined){
let data7 = data.inlet;
if(data7 && typeof data7 == "object" && !Array.isArray(data7)){
if(data7.port === undefined){
const err19 = {instancePath:instancePath+"/inlet",schemaPath:"#/properties/inlet/required",keyword:"required",params:{missingProperty: "port"},message:"must have required property '"+"port"+"'",schema:schema29.properties.inlet.required,parentSchema:schema29.properties.inlet,data:data7};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
for(const key2 in data7){
if(!((((key2 === "port") || (key2 === "via")) || (key2 === "allow")) || (key2 === "tls"))){
const err20 = {instancePath:instancePath+"/inlet",schemaPath:"#/properties/inlet/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key2},message:"must NOT have additional properties",schema:false,parentSchema:schema29.properties.inlet,data:data7};
if(vErrors === null){
vErrors = [err20];
}
else {
vErrors.push(err20);
}
errors++;
}
}
if(data7.port !== undefined){
let data8 = data7.port;
if(!(((typeof data8 == "number") && (!(data8 % 1) && !isNaN(data8))) && (isFinite(data8)))){
const err21 = {instancePath:instancePath+"/inlet/port",schemaPath:"#/definitions/port/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema12.type,parentSchema:schema12,data:data8};
if(vErrors === null){
vErrors = [err21];
}
else {
vErrors.push(err21);
}
errors++;
}
if((typeof data8 == "number") && (isFinite(data8))){
if(data8 > 65535 || isNaN(data8)){
const err22 = {instancePath:instancePath+"/inlet/port",schemaPath:"#/definitions/port/maximum",keyword:"maximum",params:{comparison: "<=", limit: 65535},message:"must be <= 65535",schema:65535,parentSchema:schema12,data:data8};
if(vErrors === null){
vErrors = [err22];
}
else {
vErrors.push(err22);
}
errors++;
}
if(data8 < 1 || isNaN(data8)){
const err23 = {instancePath:instancePath+"/inlet/port",schemaPath:"#/definitions/port/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema12,data:data8};
if(vErrors === null){
vErrors = [err23];
}
else {
vErrors.push(err23);
}
errors++;
}
}
}
if(data7.via !== undefined){
let data9 = data7.via;
if(typeof data9 === "string"){
if(!pattern3.test(data9)){
const err24 = {instancePath:instancePath+"/inlet/via",schemaPath:"#/definitions/name/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9-]{0,62}$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9-]{0,62}$"+"\"",schema:"^[a-z0-9][a-z0-9-]{0,62}$",parentSchema:schema14,data:data9};
if(vErrors === null){
vErrors = [err24];
}
else {
vErrors.push(err24);
}
errors++;
}
}
else {
const err25 = {instancePath:instancePath+"/inlet/via",schemaPath:"#/definitions/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.type,parentSchema:schema14,data:data9};
if(vErrors === null){
vErrors = [err25];
}
else {
vErrors.push(err25);
}
errors++;
}
}
if(data7.allow !== undefined){
let data10 = data7.allow;
if(typeof data10 === "string"){
if(func3(data10) > 1024){
const err26 = {instancePath:instancePath+"/inlet/allow",schemaPath:"#/definitions/allow/maxLength",keyword:"maxLength",params:{limit: 1024},message:"must NOT have more than 1024 characters",schema:1024,parentSchema:schema19,data:data10};
if(vErrors === null){
vErrors = [err26];
}
else {
vErrors.push(err26);
}
errors++;
}
if(func3(data10) < 1){
const err27 = {instancePath:instancePath+"/inlet/allow",schemaPath:"#/definitions/allow/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema19,data:data10};
if(vErrors === null){
vErrors = [err27];
}
else {
vErrors.push(err27);
}
errors++;
}
}
else {
const err28 = {instancePath:instancePath+"/inlet/allow",schemaPath:"#/definitions/allow/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema19.type,parentSchema:schema19,data:data10};
if(vErrors === null){
vErrors = [err28];
}
else {
vErrors.push(err28);
}
errors++;
}
}
if(data7.tls !== undefined){
let data11 = data7.tls;
if(typeof data11 !== "boolean"){
const err29 = {instancePath:instancePath+"/inlet/tls",schemaPath:"#/properties/inlet/properties/tls/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema29.properties.inlet.properties.tls.type,parentSchema:schema29.properties.inlet.properties.tls,data:data11};
if(vErrors === null){
vErrors = [err29];
}
else {
vErrors.push(err29);
}
errors++;
}
}
}
else {
const err30 = {instancePath:instancePath+"/inlet",schemaPath:"#/properties/inlet/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema29.properties.inlet.type,parentSchema:schema29.properties.inlet,data:data7};
if(vErrors === null){
vErrors = [err30];
}
else {
vErrors.push(err30);
}
errors++;
}
}
if(data.verification !== undefined){
if(!(validate25(data.verification, {instancePath:instancePath+"/verification",parentData:data,parentDataProperty:"verification",rootData}))){
vErrors = vErrors === null ? validate25.errors : vErrors.concat(validate25.errors);
errors = vErrors.length;
}
}
}
else {
const err31 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema29.type,parentSchema:schema29,data};
if(vErrors === null){
vErrors = [err31];
}
else {
vErrors.push(err31);
}
errors++;
}
validate23.errors = vErrors;
return errors === 0;
}

const schema44 = {"title":"ContainerManifest","description":"The inlet as a container (inlet.compose.yaml); every key has a default.","type":"object","additionalProperties":false,"properties":{"image":{"description":"Node container image. @default portal-node","type":"string","pattern":"^[a-z0-9][a-z0-9._/:@-]*$","maxLength":255,"x-expected":"a container image reference such as portal-node or registry.example.net/portal-node:1.0"},"listen":{"description":"Listen address of the inlet inside the container. @default 127.0.0.1 on the host network, 0.0.0.0 on a bridge","type":"string","enum":["127.0.0.1","0.0.0.0"]},"network-mode":{"description":"@default host","type":"string","enum":["host","bridge"]},"publish":{"description":"Published ports host:container (bridge mode). @default every inlet port, as port:port","type":"array","items":{"type":"string","pattern":"^[0-9]{1,5}:[0-9]{1,5}$","x-expected":"a port mapping such as 443:443"},"uniqueItems":true},"log-level":{"description":"NODE_LOG_LEVEL of the node. @default info","type":"string","enum":["error","warn","info","debug","trace"]},"ticket-passing":{"description":"How the node service gives its configuration: flags: --configuration; node-config: --node-config. Either way the ticket travels in the ENROLLMENT_TICKET environment variable, never on the command line. @default flags","type":"string","enum":["flags","node-config"]},"developer-variable":{"description":"Whether the node service declares NODE_DEVELOPER (default false). @default false","type":"boolean"},"psql-client":{"title":"PsqlClientManifest","description":"A PostgreSQL client container next to the node.","type":"object","additionalProperties":false,"required":["image"],"properties":{"image":{"$ref":"#/definitions/image"}}},"client":{"title":"ClientManifest","description":"A client container next to the node, named <usecase>-client, in which the guide runs the command verifications.","type":"object","additionalProperties":false,"required":["image"],"properties":{"image":{"$ref":"#/definitions/image"}}}}};
const schema45 = {"type":"string","pattern":"^[a-z0-9][a-z0-9._/:@-]*$","maxLength":255,"x-expected":"a container image reference such as postgres:15"};
const pattern34 = new RegExp("^[a-z0-9][a-z0-9._/:@-]*$", "u");
const pattern35 = new RegExp("^[0-9]{1,5}:[0-9]{1,5}$", "u");

function validate28(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
for(const key0 in data){
if(!(func2.call(schema44.properties, key0))){
const err0 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema44,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
}
if(data.image !== undefined){
let data0 = data.image;
if(typeof data0 === "string"){
if(func3(data0) > 255){
const err1 = {instancePath:instancePath+"/image",schemaPath:"#/properties/image/maxLength",keyword:"maxLength",params:{limit: 255},message:"must NOT have more than 255 characters",schema:255,parentSchema:schema44.properties.image,data:data0};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
if(!pattern34.test(data0)){
const err2 = {instancePath:instancePath+"/image",schemaPath:"#/properties/image/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9._/:@-]*$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9._/:@-]*$"+"\"",schema:"^[a-z0-9][a-z0-9._/:@-]*$",parentSchema:schema44.properties.image,data:data0};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
}
else {
const err3 = {instancePath:instancePath+"/image",schemaPath:"#/properties/image/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema44.properties.image.type,parentSchema:schema44.properties.image,data:data0};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
if(data.listen !== undefined){
let data1 = data.listen;
if(typeof data1 !== "string"){
const err4 = {instancePath:instancePath+"/listen",schemaPath:"#/properties/listen/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema44.properties.listen.type,parentSchema:schema44.properties.listen,data:data1};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
if(!((data1 === "127.0.0.1") || (data1 === "0.0.0.0"))){
const err5 = {instancePath:instancePath+"/listen",schemaPath:"#/properties/listen/enum",keyword:"enum",params:{allowedValues: schema44.properties.listen.enum},message:"must be equal to one of the allowed values",schema:schema44.properties.listen.enum,parentSchema:schema44.properties.listen,data:data1};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
}
if(data["network-mode"] !== undefined){
let data2 = data["network-mode"];
if(typeof data2 !== "string"){
const err6 = {instancePath:instancePath+"/network-mode",schemaPath:"#/properties/network-mode/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema44.properties["network-mode"].type,parentSchema:schema44.properties["network-mode"],data:data2};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
if(!((data2 === "host") || (data2 === "bridge"))){
const err7 = {instancePath:instancePath+"/network-mode",schemaPath:"#/properties/network-mode/enum",keyword:"enum",params:{allowedValues: schema44.properties["network-mode"].enum},message:"must be equal to one of the allowed values",schema:schema44.properties["network-mode"].enum,parentSchema:schema44.properties["network-mode"],data:data2};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
if(data.publish !== undefined){
let data3 = data.publish;
if(Array.isArray(data3)){
const len0 = data3.length;
for(let i0=0; i0<len0; i0++){
let data4 = data3[i0];
if(typeof data4 === "string"){
if(!pattern35.test(data4)){
const err8 = {instancePath:instancePath+"/publish/" + i0,schemaPath:"#/properties/publish/items/pattern",keyword:"pattern",params:{pattern: "^[0-9]{1,5}:[0-9]{1,5}$"},message:"must match pattern \""+"^[0-9]{1,5}:[0-9]{1,5}$"+"\"",schema:"^[0-9]{1,5}:[0-9]{1,5}$",parentSchema:schema44.properties.publish.items,data:data4};
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
const err9 = {instancePath:instancePath+"/publish/" + i0,schemaPath:"#/properties/publish/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema44.properties.publish.items.type,parentSchema:schema44.properties.publish.items,data:data4};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
let i1 = data3.length;
let j0;
if(i1 > 1){
const indices0 = {};
for(;i1--;){
let item0 = data3[i1];
if(typeof item0 !== "string"){
continue;
}
if(typeof indices0[item0] == "number"){
j0 = indices0[item0];
const err10 = {instancePath:instancePath+"/publish",schemaPath:"#/properties/publish/uniqueItems",keyword:"uniqueItems",params:{i: i1, j: j0},message:"must NOT have duplicate items (items ## "+j0+" and "+i1+" are identical)",schema:true,parentSchema:schema44.properties.publish,data:data3};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
break;
}
indices0[item0] = i1;
}
}
}
else {
const err11 = {instancePath:instancePath+"/publish",schemaPath:"#/properties/publish/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema44.properties.publish.type,parentSchema:schema44.properties.publish,data:data3};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
}
if(data["log-level"] !== undefined){
let data5 = data["log-level"];
if(typeof data5 !== "string"){
const err12 = {instancePath:instancePath+"/log-level",schemaPath:"#/properties/log-level/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema44.properties["log-level"].type,parentSchema:schema44.properties["log-level"],data:data5};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
if(!(((((data5 === "error") || (data5 === "warn")) || (data5 === "info")) || (data5 === "debug")) || (data5 === "trace"))){
const err13 = {instancePath:instancePath+"/log-level",schemaPath:"#/properties/log-level/enum",keyword:"enum",params:{allowedValues: schema44.properties["log-level"].enum},message:"must be equal to one of the allowed values",schema:schema44.properties["log-level"].enum,parentSchema:schema44.properties["log-level"],data:data5};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
}
if(data["ticket-passing"] !== undefined){
let data6 = data["ticket-passing"];
if(typeof data6 !== "string"){
const err14 = {instancePath:instancePath+"/ticket-passing",schemaPath:"#/properties/ticket-passing/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema44.properties["ticket-passing"].type,parentSchema:schema44.properties["ticket-passing"],data:data6};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
if(!((data6 === "flags") || (data6 === "node-config"))){
const err15 = {instancePath:instancePath+"/ticket-passing",schemaPath:"#/properties/ticket-passing/enum",keyword:"enum",params:{allowedValues: schema44.properties["ticket-passing"].enum},message:"must be equal to one of the allowed values",schema:schema44.properties["ticket-passing"].enum,parentSchema:schema44.properties["ticket-passing"],data:data6};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
}
if(data["developer-variable"] !== undefined){
let data7 = data["developer-variable"];
if(typeof data7 !== "boolean"){
const err16 = {instancePath:instancePath+"/developer-variable",schemaPath:"#/properties/developer-variable/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema44.properties["developer-variable"].type,parentSchema:schema44.properties["developer-variable"],data:data7};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
}
if(data["psql-client"] !== undefined){
let data8 = data["psql-client"];
if(data8 && typeof data8 == "object" && !Array.isArray(data8)){
if(data8.image === undefined){
const err17 = {instancePath:instancePath+"/psql-client",schemaPath:"#/properties/psql-client/required",keyword:"required",params:{missingProperty: "image"},message:"must have required property '"+"image"+"'",schema:schema44.properties["psql-client"].required,parentSchema:schema44.properties["psql-client"],data:data8};
if(vErrors === null){
vErrors = [err17];
}
else {
vErrors.push(err17);
}
errors++;
}
for(const key1 in data8){
if(!(key1 === "image")){
const err18 = {instancePath:instancePath+"/psql-client",schemaPath:"#/properties/psql-client/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key1},message:"must NOT have additional properties",schema:false,parentSchema:schema44.properties["psql-client"],data:data8};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
}
if(data8.image !== undefined){
let data9 = data8.image;
if(typeof data9 === "string"){
if(func3(data9) > 255){
const err19 = {instancePath:instancePath+"/psql-client/image",schemaPath:"#/definitions/image/maxLength",keyword:"maxLength",params:{limit: 255},message:"must NOT have more than 255 characters",schema:255,parentSchema:schema45,data:data9};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
if(!pattern34.test(data9)){
const err20 = {instancePath:instancePath+"/psql-client/image",schemaPath:"#/definitions/image/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9._/:@-]*$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9._/:@-]*$"+"\"",schema:"^[a-z0-9][a-z0-9._/:@-]*$",parentSchema:schema45,data:data9};
if(vErrors === null){
vErrors = [err20];
}
else {
vErrors.push(err20);
}
errors++;
}
}
else {
const err21 = {instancePath:instancePath+"/psql-client/image",schemaPath:"#/definitions/image/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema45.type,parentSchema:schema45,data:data9};
if(vErrors === null){
vErrors = [err21];
}
else {
vErrors.push(err21);
}
errors++;
}
}
}
else {
const err22 = {instancePath:instancePath+"/psql-client",schemaPath:"#/properties/psql-client/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema44.properties["psql-client"].type,parentSchema:schema44.properties["psql-client"],data:data8};
if(vErrors === null){
vErrors = [err22];
}
else {
vErrors.push(err22);
}
errors++;
}
}
if(data.client !== undefined){
let data10 = data.client;
if(data10 && typeof data10 == "object" && !Array.isArray(data10)){
if(data10.image === undefined){
const err23 = {instancePath:instancePath+"/client",schemaPath:"#/properties/client/required",keyword:"required",params:{missingProperty: "image"},message:"must have required property '"+"image"+"'",schema:schema44.properties.client.required,parentSchema:schema44.properties.client,data:data10};
if(vErrors === null){
vErrors = [err23];
}
else {
vErrors.push(err23);
}
errors++;
}
for(const key2 in data10){
if(!(key2 === "image")){
const err24 = {instancePath:instancePath+"/client",schemaPath:"#/properties/client/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key2},message:"must NOT have additional properties",schema:false,parentSchema:schema44.properties.client,data:data10};
if(vErrors === null){
vErrors = [err24];
}
else {
vErrors.push(err24);
}
errors++;
}
}
if(data10.image !== undefined){
let data11 = data10.image;
if(typeof data11 === "string"){
if(func3(data11) > 255){
const err25 = {instancePath:instancePath+"/client/image",schemaPath:"#/definitions/image/maxLength",keyword:"maxLength",params:{limit: 255},message:"must NOT have more than 255 characters",schema:255,parentSchema:schema45,data:data11};
if(vErrors === null){
vErrors = [err25];
}
else {
vErrors.push(err25);
}
errors++;
}
if(!pattern34.test(data11)){
const err26 = {instancePath:instancePath+"/client/image",schemaPath:"#/definitions/image/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9._/:@-]*$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9._/:@-]*$"+"\"",schema:"^[a-z0-9][a-z0-9._/:@-]*$",parentSchema:schema45,data:data11};
if(vErrors === null){
vErrors = [err26];
}
else {
vErrors.push(err26);
}
errors++;
}
}
else {
const err27 = {instancePath:instancePath+"/client/image",schemaPath:"#/definitions/image/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema45.type,parentSchema:schema45,data:data11};
if(vErrors === null){
vErrors = [err27];
}
else {
vErrors.push(err27);
}
errors++;
}
}
}
else {
const err28 = {instancePath:instancePath+"/client",schemaPath:"#/properties/client/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema44.properties.client.type,parentSchema:schema44.properties.client,data:data10};
if(vErrors === null){
vErrors = [err28];
}
else {
vErrors.push(err28);
}
errors++;
}
}
}
else {
const err29 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema44.type,parentSchema:schema44,data};
if(vErrors === null){
vErrors = [err29];
}
else {
vErrors.push(err29);
}
errors++;
}
validate28.errors = vErrors;
return errors === 0;
}

const schema47 = {"title":"ControlPlaneManifest","description":"A self-hosted control plane to run the project on (docs/replicas.md): controller replicas on one PostgreSQL database and relay nodes, compiled under control-plane/ as a compose file for one machine, Kubernetes manifests and a CloudFormation stack. Without it, the nodes enroll with any controller (tickets.sh asks for its address).","type":"object","additionalProperties":false,"required":["address"],"properties":{"address":{"description":"The DNS name (or IP address) nodes, relays and administrators dial: the compose machine, or the name pointed at the Kubernetes load balancers (relay n is relay-<n>.<address> there). The stack uses its load balancer's own name.","type":"string","pattern":"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$","x-expected":"a lower-case DNS name such as portal.example.net, or an IPv4 address"},"replicas":{"description":"Controller replicas, each serving every project with no leader. @default 3","type":"integer","minimum":2,"maximum":9},"relays":{"description":"Relay nodes carrying the portals that do not go direct; replicas serve no relay of their own. @default 2","type":"integer","minimum":1,"maximum":9},"port":{"description":"TCP port of the controllers (on the compose machine, replica n listens on port + n - 1). @default 4000","$ref":"#/definitions/port"},"relay-port":{"description":"TCP port of the relays (on the compose machine, relay n listens on relay-port + n - 1). @default 4100","$ref":"#/definitions/port"}}};
const pattern38 = new RegExp("^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$", "u");

function validate31(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.address === undefined){
const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "address"},message:"must have required property '"+"address"+"'",schema:schema47.required,parentSchema:schema47,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
for(const key0 in data){
if(!(((((key0 === "address") || (key0 === "replicas")) || (key0 === "relays")) || (key0 === "port")) || (key0 === "relay-port"))){
const err1 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema47,data};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
if(data.address !== undefined){
let data0 = data.address;
if(typeof data0 === "string"){
if(!pattern38.test(data0)){
const err2 = {instancePath:instancePath+"/address",schemaPath:"#/properties/address/pattern",keyword:"pattern",params:{pattern: "^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"},message:"must match pattern \""+"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"+"\"",schema:"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$",parentSchema:schema47.properties.address,data:data0};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
}
else {
const err3 = {instancePath:instancePath+"/address",schemaPath:"#/properties/address/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema47.properties.address.type,parentSchema:schema47.properties.address,data:data0};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
if(data.replicas !== undefined){
let data1 = data.replicas;
if(!(((typeof data1 == "number") && (!(data1 % 1) && !isNaN(data1))) && (isFinite(data1)))){
const err4 = {instancePath:instancePath+"/replicas",schemaPath:"#/properties/replicas/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema47.properties.replicas.type,parentSchema:schema47.properties.replicas,data:data1};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
if((typeof data1 == "number") && (isFinite(data1))){
if(data1 > 9 || isNaN(data1)){
const err5 = {instancePath:instancePath+"/replicas",schemaPath:"#/properties/replicas/maximum",keyword:"maximum",params:{comparison: "<=", limit: 9},message:"must be <= 9",schema:9,parentSchema:schema47.properties.replicas,data:data1};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
if(data1 < 2 || isNaN(data1)){
const err6 = {instancePath:instancePath+"/replicas",schemaPath:"#/properties/replicas/minimum",keyword:"minimum",params:{comparison: ">=", limit: 2},message:"must be >= 2",schema:2,parentSchema:schema47.properties.replicas,data:data1};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
}
if(data.relays !== undefined){
let data2 = data.relays;
if(!(((typeof data2 == "number") && (!(data2 % 1) && !isNaN(data2))) && (isFinite(data2)))){
const err7 = {instancePath:instancePath+"/relays",schemaPath:"#/properties/relays/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema47.properties.relays.type,parentSchema:schema47.properties.relays,data:data2};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
if((typeof data2 == "number") && (isFinite(data2))){
if(data2 > 9 || isNaN(data2)){
const err8 = {instancePath:instancePath+"/relays",schemaPath:"#/properties/relays/maximum",keyword:"maximum",params:{comparison: "<=", limit: 9},message:"must be <= 9",schema:9,parentSchema:schema47.properties.relays,data:data2};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
if(data2 < 1 || isNaN(data2)){
const err9 = {instancePath:instancePath+"/relays",schemaPath:"#/properties/relays/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema47.properties.relays,data:data2};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
}
if(data.port !== undefined){
let data3 = data.port;
if(!(((typeof data3 == "number") && (!(data3 % 1) && !isNaN(data3))) && (isFinite(data3)))){
const err10 = {instancePath:instancePath+"/port",schemaPath:"#/definitions/port/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema12.type,parentSchema:schema12,data:data3};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
if((typeof data3 == "number") && (isFinite(data3))){
if(data3 > 65535 || isNaN(data3)){
const err11 = {instancePath:instancePath+"/port",schemaPath:"#/definitions/port/maximum",keyword:"maximum",params:{comparison: "<=", limit: 65535},message:"must be <= 65535",schema:65535,parentSchema:schema12,data:data3};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
if(data3 < 1 || isNaN(data3)){
const err12 = {instancePath:instancePath+"/port",schemaPath:"#/definitions/port/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema12,data:data3};
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
if(data["relay-port"] !== undefined){
let data4 = data["relay-port"];
if(!(((typeof data4 == "number") && (!(data4 % 1) && !isNaN(data4))) && (isFinite(data4)))){
const err13 = {instancePath:instancePath+"/relay-port",schemaPath:"#/definitions/port/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema12.type,parentSchema:schema12,data:data4};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
if((typeof data4 == "number") && (isFinite(data4))){
if(data4 > 65535 || isNaN(data4)){
const err14 = {instancePath:instancePath+"/relay-port",schemaPath:"#/definitions/port/maximum",keyword:"maximum",params:{comparison: "<=", limit: 65535},message:"must be <= 65535",schema:65535,parentSchema:schema12,data:data4};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
if(data4 < 1 || isNaN(data4)){
const err15 = {instancePath:instancePath+"/relay-port",schemaPath:"#/definitions/port/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema12,data:data4};
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
}
else {
const err16 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema47.type,parentSchema:schema47,data};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
validate31.errors = vErrors;
return errors === 0;
}


function validate10(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
/*# sourceURL="https://portal.example.net/schemas/manifest.schema.json" */;
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.usecase === undefined){
const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "usecase"},message:"must have required property '"+"usecase"+"'",schema:schema11.required,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
if(data.title === undefined){
const err1 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "title"},message:"must have required property '"+"title"+"'",schema:schema11.required,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
for(const key0 in data){
if(!(func2.call(schema11.properties, key0))){
const err2 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
}
if(data.usecase !== undefined){
let data0 = data.usecase;
if(typeof data0 === "string"){
if(!pattern0.test(data0)){
const err3 = {instancePath:instancePath+"/usecase",schemaPath:"#/properties/usecase/pattern",keyword:"pattern",params:{pattern: "^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$"},message:"must match pattern \""+"^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$"+"\"",schema:"^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$",parentSchema:schema11.properties.usecase,data:data0};
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
const err4 = {instancePath:instancePath+"/usecase",schemaPath:"#/properties/usecase/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.usecase.type,parentSchema:schema11.properties.usecase,data:data0};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
if(data.title !== undefined){
let data1 = data.title;
if(typeof data1 === "string"){
if(!pattern1.test(data1)){
const err5 = {instancePath:instancePath+"/title",schemaPath:"#/properties/title/pattern",keyword:"pattern",params:{pattern: "^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029$`'\"\\\\{}<>]{1,80}$"},message:"must match pattern \""+"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029$`'\"\\\\{}<>]{1,80}$"+"\"",schema:"^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029$`'\"\\\\{}<>]{1,80}$",parentSchema:schema11.properties.title,data:data1};
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
const err6 = {instancePath:instancePath+"/title",schemaPath:"#/properties/title/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.title.type,parentSchema:schema11.properties.title,data:data1};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
if(data["status-port"] !== undefined){
let data2 = data["status-port"];
if(!(((typeof data2 == "number") && (!(data2 % 1) && !isNaN(data2))) && (isFinite(data2)))){
const err7 = {instancePath:instancePath+"/status-port",schemaPath:"#/definitions/port/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema12.type,parentSchema:schema12,data:data2};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
if((typeof data2 == "number") && (isFinite(data2))){
if(data2 > 65535 || isNaN(data2)){
const err8 = {instancePath:instancePath+"/status-port",schemaPath:"#/definitions/port/maximum",keyword:"maximum",params:{comparison: "<=", limit: 65535},message:"must be <= 65535",schema:65535,parentSchema:schema12,data:data2};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
if(data2 < 1 || isNaN(data2)){
const err9 = {instancePath:instancePath+"/status-port",schemaPath:"#/definitions/port/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema12,data:data2};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
}
if(data.tickets !== undefined){
let data3 = data.tickets;
if(data3 && typeof data3 == "object" && !Array.isArray(data3)){
for(const key1 in data3){
if(!((key1 === "outlet") || (key1 === "inlet"))){
const err10 = {instancePath:instancePath+"/tickets",schemaPath:"#/properties/tickets/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key1},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.tickets,data:data3};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
}
if(data3.outlet !== undefined){
if(!(validate11(data3.outlet, {instancePath:instancePath+"/tickets/outlet",parentData:data3,parentDataProperty:"outlet",rootData}))){
vErrors = vErrors === null ? validate11.errors : vErrors.concat(validate11.errors);
errors = vErrors.length;
}
}
if(data3.inlet !== undefined){
if(!(validate11(data3.inlet, {instancePath:instancePath+"/tickets/inlet",parentData:data3,parentDataProperty:"inlet",rootData}))){
vErrors = vErrors === null ? validate11.errors : vErrors.concat(validate11.errors);
errors = vErrors.length;
}
}
}
else {
const err11 = {instancePath:instancePath+"/tickets",schemaPath:"#/properties/tickets/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.tickets.type,parentSchema:schema11.properties.tickets,data:data3};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
}
if(data.outlet !== undefined){
if(!(validate14(data.outlet, {instancePath:instancePath+"/outlet",parentData:data,parentDataProperty:"outlet",rootData}))){
vErrors = vErrors === null ? validate14.errors : vErrors.concat(validate14.errors);
errors = vErrors.length;
}
}
if(data.inlet !== undefined){
if(!(validate20(data.inlet, {instancePath:instancePath+"/inlet",parentData:data,parentDataProperty:"inlet",rootData}))){
vErrors = vErrors === null ? validate20.errors : vErrors.concat(validate20.errors);
errors = vErrors.length;
}
}
if(data.portals !== undefined){
let data8 = data.portals;
if(Array.isArray(data8)){
if(data8.length > 32){
const err12 = {instancePath:instancePath+"/portals",schemaPath:"#/properties/portals/maxItems",keyword:"maxItems",params:{limit: 32},message:"must NOT have more than 32 items",schema:32,parentSchema:schema11.properties.portals,data:data8};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
if(data8.length < 1){
const err13 = {instancePath:instancePath+"/portals",schemaPath:"#/properties/portals/minItems",keyword:"minItems",params:{limit: 1},message:"must NOT have fewer than 1 items",schema:1,parentSchema:schema11.properties.portals,data:data8};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
const len0 = data8.length;
for(let i0=0; i0<len0; i0++){
if(!(validate23(data8[i0], {instancePath:instancePath+"/portals/" + i0,parentData:data8,parentDataProperty:i0,rootData}))){
vErrors = vErrors === null ? validate23.errors : vErrors.concat(validate23.errors);
errors = vErrors.length;
}
}
}
else {
const err14 = {instancePath:instancePath+"/portals",schemaPath:"#/properties/portals/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema11.properties.portals.type,parentSchema:schema11.properties.portals,data:data8};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
}
if(data.container !== undefined){
if(!(validate28(data.container, {instancePath:instancePath+"/container",parentData:data,parentDataProperty:"container",rootData}))){
vErrors = vErrors === null ? validate28.errors : vErrors.concat(validate28.errors);
errors = vErrors.length;
}
}
if(data.verification !== undefined){
if(!(validate25(data.verification, {instancePath:instancePath+"/verification",parentData:data,parentDataProperty:"verification",rootData}))){
vErrors = vErrors === null ? validate25.errors : vErrors.concat(validate25.errors);
errors = vErrors.length;
}
}
if(data["control-plane"] !== undefined){
if(!(validate31(data["control-plane"], {instancePath:instancePath+"/control-plane",parentData:data,parentDataProperty:"control-plane",rootData}))){
vErrors = vErrors === null ? validate31.errors : vErrors.concat(validate31.errors);
errors = vErrors.length;
}
}
}
else {
const err15 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.type,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
validate10.errors = vErrors;
return errors === 0;
}

