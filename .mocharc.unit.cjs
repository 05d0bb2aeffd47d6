// `npm run test:unit`: the unit tests only, in seconds, with Node.js alone. See scripts/test-suites.cjs.
module.exports = require('./scripts/test-suites.cjs').unitConfig();
